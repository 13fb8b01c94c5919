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
        int[] s = new int[n];
        int[] e = new int[n];
        for(int i = 0; i < n; i++)
        {
            StringTokenizer st = new StringTokenizer(in.readLine());
            s[i] = Integer.parseInt(st.nextToken());
            e[i] = Integer.parseInt(st.nextToken());
        }
        Arrays.sort(s);
        Arrays.sort(e);
        int res = 0, j = 0;
        for(int i = 0; i < n; i++)
        {
            // the hall of the earliest-ending lecture is free again
            if(s[i] >= e[j]) j++;
            else res++;
        }
        System.out.println(res);
        in.close();
    }
}
