import java.util.*;

public class Main {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        int t = in.nextInt();
        for (int i = 0; i < t; i++) {
            int a = Integer.parseInt(in.next());
            int b = Integer.parseInt(in.next());
            System.out.println(a + b);
        }
    }
}
