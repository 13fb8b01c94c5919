import java.util.*;

public class Main {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        int t = in.nextInt();
        for (int i = 0; i < t; i++) {
            double x = Double.parseDouble(in.next());
            System.out.println(((long) x) % 2 == 0 ? "YES" : "NO");
        }
    }
}
