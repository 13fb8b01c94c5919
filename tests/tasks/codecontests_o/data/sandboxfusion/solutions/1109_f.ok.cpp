#include <bits/stdc++.h>
using namespace std;
// Brute force: every segment [l, r] of values, checked for being a tree (connected, cells - 1 edges).
int main() {
    int n, m;
    cin >> n >> m;
    vector<vector<int>> f(n, vector<int>(m));
    for (auto& row : f) for (auto& v : row) cin >> v;
    int total = n * m;
    long long count = 0;
    for (int l = 1; l <= total; l++) {
        for (int r = l; r <= total; r++) {
            auto in = [&](int i, int j) { return i >= 0 && i < n && j >= 0 && j < m && f[i][j] >= l && f[i][j] <= r; };
            int cells = 0, edges = 0, si = -1, sj = -1;
            for (int i = 0; i < n; i++)
                for (int j = 0; j < m; j++)
                    if (in(i, j)) {
                        cells++;
                        si = i, sj = j;
                        edges += in(i + 1, j) + in(i, j + 1);
                    }
            if (cells == 0 || edges != cells - 1) continue;
            vector<vector<bool>> seen(n, vector<bool>(m, false));
            vector<pair<int, int>> stack = {{si, sj}};
            seen[si][sj] = true;
            int reached = 0;
            while (!stack.empty()) {
                auto [i, j] = stack.back();
                stack.pop_back();
                reached++;
                int di[] = {1, -1, 0, 0}, dj[] = {0, 0, 1, -1};
                for (int d = 0; d < 4; d++) {
                    int a = i + di[d], b = j + dj[d];
                    if (in(a, b) && !seen[a][b]) seen[a][b] = true, stack.push_back({a, b});
                }
            }
            if (reached == cells) count++;
        }
    }
    cout << count << "\n";
}
