import java.util.Scanner;

public class Main {
    public static void main(String[] args) {
        long n = new Scanner(System.in).nextLong();
        for (long d = 2; d * d <= n; d++) {
            if (n % d == 0) {
                System.out.println(n / d);
                return;
            }
        }
        System.out.println(-1);
    }
}
