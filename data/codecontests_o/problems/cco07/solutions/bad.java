import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(in.readLine().trim());
        StringTokenizer st = new StringTokenizer(in.readLine());
        long[] a = new long[n];
        for (int i = 0; i < n; i++) a[i] = Long.parseLong(st.nextToken());
        for (int i = 0; i < n; i++) {
            int best = i;
            for (int j = i + 1; j < n; j++) if (a[j] < a[best]) best = j;
            long t = a[i]; a[i] = a[best]; a[best] = t;
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < n; i++) out.append(a[i]).append(i + 1 < n ? ' ' : '\n');
        System.out.print(out);
    }
}
