import java.io.*;
import java.util.*;

public class Main {
    static long[][] pre;

    static int nextInt(StreamTokenizer st) throws IOException {
        st.nextToken();
        return (int)st.nval;
    }

    public static void main(String[] args) throws IOException {
        StreamTokenizer st = new StreamTokenizer(new BufferedReader(new InputStreamReader(System.in)));
        PrintWriter pw = new PrintWriter(new BufferedOutputStream(System.out));
        int n = nextInt(st), m = nextInt(st), q = nextInt(st);
        pre = new long[n + 1][m + 1];
        for (int i = 1; i <= n; i++)
            for (int j = 1; j <= m; j++)
                pre[i][j] = pre[i - 1][j] + pre[i][j - 1] - pre[i - 1][j - 1] + nextInt(st);
        for (int i = 0; i < q; i++) {
            int r1 = nextInt(st), c1 = nextInt(st), r2 = nextInt(st), c2 = nextInt(st);
            long ans = pre[r2][c2] - pre[r1 - 1][c2] - pre[r2][c1 - 1] + pre[r1 - 1][c1 - 1];
            pw.println(ans);
        }
        pw.flush();
    }
}
