import java.util.*;
import java.io.*;

public class Main {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        StringTokenizer st = new StringTokenizer(in.readLine());
        int n = Integer.parseInt(st.nextToken()), m = Integer.parseInt(st.nextToken());
        ArrayList<Integer>[] adj = new ArrayList[n + 1];
        for (int i = 0; i <= n; i++) adj[i] = new ArrayList<Integer>();
        int[] indeg = new int[n + 1];
        for (int i = 0; i < m; i++) {
            st = new StringTokenizer(in.readLine());
            int a = Integer.parseInt(st.nextToken());
            int b = Integer.parseInt(st.nextToken());
            adj[a].add(b);
            indeg[b]++;
        }
        PriorityQueue<Integer> pq = new PriorityQueue<Integer>();
        for (int i = 1; i <= n; i++) if (indeg[i] == 0) pq.add(i);
        int[] order = new int[n];
        int cnt = 0;
        while (!pq.isEmpty()) {
            int u = pq.poll();
            order[cnt++] = u;
            for (int v : adj[u]) {
                indeg[v]--;
                if (indeg[v] == 0) pq.add(v);
            }
        }
        if (cnt < n) {
            System.out.println("IMPOSSIBLE");
            return;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            if (i > 0) sb.append(" ");
            sb.append(order[i]);
        }
        System.out.println(sb.toString());
    }
}
