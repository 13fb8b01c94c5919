import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(br.readLine().trim());
        int[][] a = new int[n][2];
        for (int i = 0; i < n; i++) {
            StringTokenizer st = new StringTokenizer(br.readLine());
            a[i][0] = Integer.parseInt(st.nextToken());
            a[i][1] = Integer.parseInt(st.nextToken());
        }
        Arrays.sort(a, new Comparator<int[]>() {
            public int compare(int[] x, int[] y) {
                return Integer.compare(x[1], y[1]);
            }
        });
        int res = 0;
        int end = Integer.MIN_VALUE;
        for (int i = 0; i < n; i++)
            if (a[i][0] >= end) {
                res++;
                end = a[i][1];
            }
        System.out.println(res);
    }
}
