import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.IOException;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(br.readLine().trim());
        long xs[] = new long[n], ys[] = new long[n];
        for (int i = 0; i < n; i++) {
            String[] parts = br.readLine().trim().split(" ");
            xs[i] = Long.parseLong(parts[0]); ys[i] = Long.parseLong(parts[1]);
        }
        long area2 = 0; double perim = 0;
        for (int i = 0; i < n; i++) {
            int j = i + 1 == n ? 0 : i + 1;
            area2 += xs[i] * ys[j] - xs[j] * ys[i];
            perim += Math.hypot(xs[i] - xs[j], ys[i] - ys[j]);
        }
        System.out.println(String.format("%.6f %.6f", Math.abs(area2) / 2.0, perim));
    }
}
