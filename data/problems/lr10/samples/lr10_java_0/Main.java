import java.io.*;
import java.util.*;

public class Main {
    static long[] pre;

    static int nextInt(StreamTokenizer st) throws IOException {
        st.nextToken();
        return (int)st.nval;
    }

    public static void main(String[] args) throws IOException {
        StreamTokenizer st = new StreamTokenizer(new BufferedInputStream(System.in));
        PrintWriter pw = new PrintWriter(new BufferedOutputStream(System.out));
        int n = nextInt(st);
        int q = nextInt(st);
        pre = new long[n + 1];
        for (int i = 1; i <= n; i++) pre[i] = pre[i - 1] + nextInt(st);
        for (int i = 0; i < q; i++) {
            int l = nextInt(st), r = nextInt(st);
            long ans = pre[r] - pre[l - 1];
            pw.println(ans);
        }
        pw.flush();
    }
}
