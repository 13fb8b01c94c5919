import java.util.*;
import java.io.*;

public class Main {
    static int H, W;
    static char[][] grid;

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        StringTokenizer tok = new StringTokenizer(in.readLine());
        H = Integer.parseInt(tok.nextToken());
        W = Integer.parseInt(tok.nextToken());
        grid = new char[H][];
        int sr = 0, sc = 0, tr = 0, tc = 0;
        for (int i = 0; i < H; i++) {
            grid[i] = in.readLine().trim().toCharArray();
            for (int j = 0; j < W; j++) {
                if (grid[i][j] == 'S') { sr = i; sc = j; }
                if (grid[i][j] == 'T') { tr = i; tc = j; }
            }
        }
        int[][] dist = new int[H][W];
        for (int[] row : dist) Arrays.fill(row, -1);
        ArrayDeque<int[]> queue = new ArrayDeque<int[]>();
        queue.add(new int[]{sr, sc});
        dist[sr][sc] = 0;
        int[] DR = {1, -1, 0, 0};
        int[] DC = {0, 0, 1, -1};
        while (!queue.isEmpty()) {
            int[] cur = queue.poll();
            for (int d = 0; d < 4; d++) {
                int nr = cur[0] + DR[d], nc = cur[1] + DC[d];
                if (nr < 0 || nc < 0 || nr >= H || nc >= W) continue;
                if (grid[nr][nc] == '#' || dist[nr][nc] != -1) continue;
                dist[nr][nc] = dist[cur[0]][cur[1]] + 1;
                queue.add(new int[]{nr, nc});
            }
        }
        System.out.println(dist[tr][tc]);
    }
}
