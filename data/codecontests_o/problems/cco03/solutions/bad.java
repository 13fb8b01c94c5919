import java.util.Scanner;

public class Main {
    public static void main(String[] args) {
        long n = new Scanner(System.in).nextLong();
        long found = -1;
        for (long d = 2; d < n; d++) {
            if (n % d == 0) {
                found = d;
            }
        }
        System.out.println(found);
    }
}
