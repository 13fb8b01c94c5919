import java.io.*;
import java.util.*;

public class Solution {
    static double dist(long x1, long y1, long x2, long y2) {
        long dx = x1 - x2, dy = y1 - y2;
        return Math.sqrt((double) (dx * dx + dy * dy));
    }

    public static void main(String[] args) throws IOException {
        DataInputStream in = new DataInputStream(new BufferedInputStream(System.in, 1 << 16));
        StreamTokenizer st = new StreamTokenizer(new BufferedReader(new InputStreamReader(in)));
        st.nextToken();
        int n = (int) st.nval;
        long[] x = new long[n];
        long[] y = new long[n];
        for (int i = 0; i < n; i++) {
            st.nextToken(); x[i] = (long) st.nval;
            st.nextToken(); y[i] = (long) st.nval;
        }
        long S = 0;
        double P = 0;
        for (int i = 0; i < n; i++) {
            int j = (i + 1) % n;
            S += x[i] * y[j] - x[j] * y[i];
            P += dist(x[i], y[i], x[j], y[j]);
        }
        if (S < 0) S = -S;
        System.out.printf("%.6f %.6f%n", S / 2.0, P);
    }
}
