import java.util.Scanner;

public class Main {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        int n = in.nextInt(), best = 0, at = 1;
        for (int i = 1; i <= n; i++) {
            int x = in.nextInt();
            if (x > best) { best = x; at = i; }
        }
        System.out.println(at);
    }
}
