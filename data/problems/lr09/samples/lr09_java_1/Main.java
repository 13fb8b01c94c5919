import java.util.Scanner;
import java.util.Arrays;
import java.util.Comparator;

public class Main
{
    public static void main(String args[])
    {
        Scanner sc = new Scanner(System.in);
        int n = sc.nextInt();
        int[][] a = new int[n][2];
        for(int i = 0; i < n; i++)
        {
            a[i][0] = sc.nextInt();
            a[i][1] = sc.nextInt();
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
        sc.close();
    }
}
