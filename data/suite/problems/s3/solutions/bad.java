import java.util.Scanner;

public class Main {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        int n = in.nextInt(), best = 0;
        for (int i = 0; i < n; i++) best = Math.max(best, in.nextInt());
        System.out.println(best);
    }
}
