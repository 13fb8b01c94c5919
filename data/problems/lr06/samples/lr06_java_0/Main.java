import java.io.*;
import java.util.*;

public class Main {
    static int n, m;
    static char[][] g;
    static boolean[][] vis;
    static int[] dx = {1, -1, 0, 0}, dy = {0, 0, 1, -1};

    static int fill(int sx, int sy) {
        ArrayDeque<int[]> q = new ArrayDeque<int[]>();
        q.add(new int[]{sx, sy});
        vis[sx][sy] = true;
        int size = 0;
        while (!q.isEmpty()) {
            int[] cur = q.poll();
            size++;
            for (int d = 0; d < 4; d++) {
                int nx = cur[0] + dx[d], ny = cur[1] + dy[d];
                if (nx < 0 || ny < 0 || nx >= n || ny >= m) continue;
                if (g[nx][ny] == '#' || vis[nx][ny]) continue;
                vis[nx][ny] = true;
                q.add(new int[]{nx, ny});
            }
        }
        return size;
    }

    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        StringTokenizer st = new StringTokenizer(br.readLine());
        n = Integer.parseInt(st.nextToken());
        m = Integer.parseInt(st.nextToken());
        g = new char[n][];
        for (int i = 0; i < n; i++) g[i] = br.readLine().trim().toCharArray();
        vis = new boolean[n][m];
        int zones = 0, best = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < m; j++)
                if (g[i][j] == '.' && !vis[i][j]) {
                    zones++;
                    best = Math.max(best, fill(i, j));
                }
        System.out.println(zones + " " + best);
    }
}
