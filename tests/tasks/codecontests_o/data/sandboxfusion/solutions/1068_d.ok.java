import java.io.*;
import java.util.*;

public class Main {
    static final long MOD = 998244353L;

    public static void main(String[] args) throws IOException {
        StreamTokenizer in = new StreamTokenizer(new BufferedInputStream(System.in));
        in.nextToken();
        int n = (int) in.nval;
        int[] a = new int[n];
        for (int i = 0; i < n; i++) { in.nextToken(); a[i] = (int) in.nval; }
        long[][] dp = new long[201][2];
        for (int v = 1; v <= 200; v++) if (a[0] == -1 || a[0] == v) dp[v][0] = 1;
        for (int i = 1; i < n; i++) {
            long[] pre0 = new long[202], pre1 = new long[202];
            for (int v = 1; v <= 200; v++) {
                pre0[v] = (pre0[v - 1] + dp[v][0]) % MOD;
                pre1[v] = (pre1[v - 1] + dp[v][1]) % MOD;
            }
            long[][] next = new long[201][2];
            for (int v = 1; v <= 200; v++) {
                if (a[i] != -1 && a[i] != v) continue;
                next[v][0] = (pre0[v - 1] + pre1[v - 1]) % MOD;
                next[v][1] = (dp[v][0] + dp[v][1] + pre1[200] - pre1[v] + MOD) % MOD;
            }
            dp = next;
        }
        long total = 0;
        for (int v = 1; v <= 200; v++) total = (total + dp[v][1]) % MOD;
        System.out.println(total);
    }
}
