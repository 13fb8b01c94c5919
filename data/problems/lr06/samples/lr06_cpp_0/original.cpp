#include <bits/stdc++.h>
using namespace std;
#define MAXN 255
#define REP(i,n) for(int i=0;i<n;i++)
typedef pair<int,int> pii;

char g[MAXN][MAXN];
int dist_[MAXN][MAXN];
int dx[4] = {1,-1,0,0}, dy[4] = {0,0,1,-1};

int main() {
    int n, m;
    scanf("%d %d", &n, &m);
    int sx = 0, sy = 0, tx = 0, ty = 0;
    REP(i, n) {
        scanf("%s", g[i]);
        REP(j, m) {
            if (g[i][j] == 'S') sx = i, sy = j;
            if (g[i][j] == 'T') tx = i, ty = j;
        }
    }
    memset(dist_, -1, sizeof dist_);
    queue<pii> q;
    q.push(make_pair(sx, sy));
    dist_[sx][sy] = 0;
    while (!q.empty()) {
        pii cur = q.front(); q.pop();
        int x = cur.first, y = cur.second;
        if (x == tx && y == ty) break;
        REP(d, 4) {
            int nx = x + dx[d], ny = y + dy[d];
            if (nx < 0 || ny < 0 || nx >= n || ny >= m) continue;
            if (g[nx][ny] == '#' || dist_[nx][ny] != -1) continue;
            dist_[nx][ny] = dist_[x][y] + 1;
            q.push(make_pair(nx, ny));
        }
    }
    printf("%d\n", dist_[tx][ty]);
    return 0;
}
