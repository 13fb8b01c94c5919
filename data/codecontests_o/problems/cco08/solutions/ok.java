import java.util.*;

public class Main {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        int t = in.nextInt();
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < t; i++) out.append(in.nextLong() % 2 == 0 ? "YES" : "NO").append('\n');
        System.out.print(out);
    }
}
