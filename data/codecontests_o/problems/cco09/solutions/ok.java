import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(in.readLine().trim());
        StringTokenizer st = new StringTokenizer(in.readLine());
        long total = 0, best = Long.MIN_VALUE;
        for (int i = 0; i < n; i++) {
            total += Long.parseLong(st.nextToken());
            best = Math.max(best, total);
        }
        System.out.println(best);
    }
}
