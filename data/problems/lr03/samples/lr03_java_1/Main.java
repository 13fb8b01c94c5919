import java.util.Scanner;
import java.io.BufferedInputStream;

public class Main {
    public static void main(String[] args) {
        Scanner sc = new Scanner(new BufferedInputStream(System.in));
        int n = sc.nextInt();
        long xs[] = new long[n], ys[] = new long[n];
        for (int i = 0; i < n; i++) { xs[i] = sc.nextLong(); ys[i] = sc.nextLong(); }
        long area2 = 0; double perim = 0;
        for (int i = 0; i < n; i++) {
            int j = i + 1 == n ? 0 : i + 1;
            area2 += xs[i] * ys[j] - xs[j] * ys[i];
            perim += Math.hypot(xs[i] - xs[j], ys[i] - ys[j]);
        }
        System.out.println(String.format("%.6f %.6f", Math.abs(area2) / 2.0, perim));
    }
}
