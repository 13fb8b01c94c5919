import java.io.*;
import java.util.*;

public class Main {
    static int n, m;
    static char[][] g;
    static int[][] dist;

    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        StringTokenizer st = new StringTokenizer(br.readLine());
        n = Integer.parseInt(st.nextToken());
        m = Integer.parseInt(st.nextToken());
        g = new char[n][];
        int sx = 0, sy = 0, tx = 0, ty = 0;
        for (int i = 0; i < n; i++) {
            g[i] = br.readLine().trim().toCharArray();
            for (int j = 0; j < m; j++) {
                if (g[i][j] == 'S') { sx = i; sy = j; }
                if (g[i][j] == 'T') { tx = i; ty = j; }
            }
        }
        dist = new int[n][m];
        for (int i = 0; i < n; i++) Arrays.fill(dist[i], -1);
        int[] dx = {1, -1, 0, 0};
        int[] dy = {0, 0, 1, -1};
        ArrayDeque<int[]> q = new ArrayDeque<int[]>();
        q.add(new int[]{sx, sy});
        dist[sx][sy] = 0;
        while (!q.isEmpty()) {
            int[] cur = q.poll();
            int x = cur[0], y = cur[1];
            if (x == tx && y == ty) break;
            for (int d = 0; d < 4; d++) {
                int nx = x + dx[d], ny = y + dy[d];
                if (nx < 0 || ny < 0 || nx >= n || ny >= m) continue;
                if (g[nx][ny] == '#' || dist[nx][ny] != -1) continue;
                dist[nx][ny] = dist[x][y] + 1;
                q.add(new int[]{nx, ny});
            }
        }
        System.out.println(dist[tx][ty]);
    }
}
