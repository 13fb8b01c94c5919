import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.util.Arrays;
import java.util.Comparator;
import java.util.StringTokenizer;

public class Main
{
    public static void main(String args[]) throws IOException
    {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(in.readLine().trim());
        int[][] a = new int[n][2];
        for(int i = 0; i < n; i++)
        {
            StringTokenizer st = new StringTokenizer(in.readLine());
            a[i][0] = Integer.parseInt(st.nextToken());
            a[i][1] = Integer.parseInt(st.nextToken());
        }
        Arrays.sort(a, new Comparator<int[]>() {
            public int compare(int[] x, int[] y) {
                if (x[1] != y[1]) return x[1] - y[1];
                return x[0] - y[0];
            }
        });
        int res = 0, end = 0;
        for(int i = 0; i < n; i++)
        {
            if(a[i][0] >= end)
            {
                res = res + 1;
                end = a[i][1];
            }
        }
        System.out.println(res);
        in.close();
    }
}
