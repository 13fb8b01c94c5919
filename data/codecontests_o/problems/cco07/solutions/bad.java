import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(in.readLine().trim());
        StringTokenizer st = new StringTokenizer(in.readLine());
        List<Long> a = new ArrayList<>();
        for (int i = 0; i < n; i++) a.add(Long.parseLong(st.nextToken()));
        for (int i = 0; i < n; i++)
            for (int j = 0; j + 1 < n - i; j++)
                if (a.get(j).compareTo(a.get(j + 1)) > 0) Collections.swap(a, j, j + 1);
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < n; i++) out.append(a.get(i)).append(i + 1 < n ? ' ' : '\n');
        System.out.print(out);
    }
}
