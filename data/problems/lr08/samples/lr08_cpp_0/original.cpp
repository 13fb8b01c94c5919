#include <bits/stdc++.h>
using namespace std;

vector<int> adj[20005];

int main() {
    int n, m;
    scanf("%d%d", &n, &m);
    int *indeg = new int[n + 1];
    for (int i = 0; i <= n; i++) indeg[i] = 0;
    for (int i = 0; i < m; i++) {
        int a, b;
        scanf("%d%d", &a, &b);
        adj[a].push_back(b);
        indeg[b]++;
    }
    vector<int> st, order;
    for (int i = 1; i <= n; i++)
        if (indeg[i] == 0) st.push_back(i);
    while (st.size() > 0) {
        int u = st.back();
        st.pop_back();
        order.push_back(u);
        for (int j = 0; j < (int)adj[u].size(); j++) {
            int v = adj[u][j];
            if (--indeg[v] == 0) st.push_back(v);
        }
    }
    if ((int)order.size() != n) {
        puts("IMPOSSIBLE");
        return 0;
    }
    for (int i = 0; i < n; i++) printf("%d%c", order[i], i + 1 == n ? '\n' : ' ');
    return 0;
}
