import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(in.readLine().trim());
        StringTokenizer st = new StringTokenizer(in.readLine());
        long[] a = new long[n];
        for (int i = 0; i < n; i++) a[i] = Long.parseLong(st.nextToken());
        long total = 0, best = Long.MIN_VALUE;
        for (int i = 0; i <= n; i++) {
            total += a[i];
            best = Math.max(best, total);
        }
        System.out.println(best);
    }
}
