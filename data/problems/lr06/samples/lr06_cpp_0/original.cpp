#include <bits/stdc++.h>
using namespace std;
#define MAXN 255
#define REP(i,n) for(int i=0;i<n;i++)
typedef pair<int,int> pii;

char g[MAXN][MAXN];
bool vis[MAXN][MAXN];
int dx[4] = {1,-1,0,0}, dy[4] = {0,0,1,-1};
int n, m;

int fill(int sx, int sy) {
    queue<pii> q;
    q.push(make_pair(sx, sy));
    vis[sx][sy] = true;
    int sz = 0;
    while (!q.empty()) {
        pii cur = q.front(); q.pop();
        sz++;
        REP(d, 4) {
            int nx = cur.first + dx[d], ny = cur.second + dy[d];
            if (nx < 0 || ny < 0 || nx >= n || ny >= m) continue;
            if (g[nx][ny] == '#' || vis[nx][ny]) continue;
            vis[nx][ny] = true;
            q.push(make_pair(nx, ny));
        }
    }
    return sz;
}

int main() {
    scanf("%d %d", &n, &m);
    REP(i, n) scanf("%s", g[i]);
    int zones = 0, best = 0;
    REP(i, n) REP(j, m) {
        if (g[i][j] == '.' && !vis[i][j]) {
            zones++;
            best = max(best, fill(i, j));
        }
    }
    printf("%d %d\n", zones, best);
    return 0;
}
