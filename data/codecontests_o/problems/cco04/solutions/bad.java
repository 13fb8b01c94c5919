import java.util.*;

public class Main {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        int n = in.nextInt();
        long d = 0, t = 0;
        for (int i = 0; i < n; i++) {
            d += in.nextInt();
            t += in.nextInt();
        }
        System.out.println(String.format(Locale.ROOT, "%.3f", (double) d / t));
    }
}
