import java.util.*;
import java.io.*;

public class Solution {
    static final int MOD = 1000000007;

    public static void main(String[] args) throws IOException {
        DataInputStream in = new DataInputStream(new BufferedInputStream(System.in));
        StreamTokenizer tok = new StreamTokenizer(new BufferedReader(new InputStreamReader(in)));
        tok.nextToken(); int n = (int) tok.nval;
        tok.nextToken(); int k = (int) tok.nval;
        int s[] = new int[k];
        for (int i = 0; i < k; i++) { tok.nextToken(); s[i] = (int) tok.nval; }
        tok.nextToken(); int b = (int) tok.nval;
        boolean broken[] = new boolean[n + 1];
        for (int i = 0; i < b; i++) {
            tok.nextToken();
            broken[(int) tok.nval] = true;
        }
        long dp[] = new long[n + 1];
        dp[0] = 1;
        for (int i = 1; i <= n; i++) {
            if (broken[i] == true) continue;
            long sum = 0;
            for (int j = 0; j < k; j++)
                if (i - s[j] >= 0)
                    sum = sum + dp[i - s[j]];
            dp[i] = sum % MOD;
        }
        System.out.println(dp[n]);
    }
}
