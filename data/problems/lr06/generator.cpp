#include "testlib.h"

#include <string>
#include <vector>

using namespace std;

// Types: random (walls with probability density%), open (no walls), snake (a long
// corridor that visits every row), blocked (T walled in: answer -1).
int main(int argc, char* argv[]) {
    registerGen(argc, argv, 1);
    int n = opt<int>("n");
    int m = opt<int>("m");
    string type = opt<string>("type", "random");
    int density = opt<int>("density", 25);

    vector<string> grid(n, string(m, '.'));
    if (type == "random" || type == "blocked") {
        for (int i = 0; i < n; i++)
            for (int j = 0; j < m; j++)
                if (rnd.next(100) < density) grid[i][j] = '#';
    } else if (type == "snake") {
        // Wall rows at odd indices, each with one gap alternating between the two ends.
        for (int i = 1; i < n - 1; i += 2) {
            grid[i] = string(m, '#');
            grid[i][(i / 2) % 2 == 0 ? m - 1 : 0] = '.';
        }
    }

    int sx, sy, tx, ty;
    if (type == "snake") {
        sx = 0, sy = 0;
        tx = n - 1, ty = ((n - 1) / 2) % 2 == 0 ? m - 1 : 0;
        if (sx == tx && sy == ty) ty = m - 1 - sy;
    } else {
        do {
            sx = rnd.next(n), sy = rnd.next(m);
            tx = rnd.next(n), ty = rnd.next(m);
        } while (sx == tx && sy == ty);
    }
    grid[sx][sy] = 'S';
    grid[tx][ty] = 'T';
    if (type == "blocked") {
        int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
        for (int d = 0; d < 4; d++) {
            int x = tx + dx[d], y = ty + dy[d];
            if (x >= 0 && x < n && y >= 0 && y < m && grid[x][y] != 'S') grid[x][y] = '#';
        }
    }

    println(n, m);
    for (int i = 0; i < n; i++) println(grid[i]);
    return 0;
}
