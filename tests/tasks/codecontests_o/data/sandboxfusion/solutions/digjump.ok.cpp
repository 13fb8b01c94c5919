#include <bits/stdc++.h>
using namespace std;
int main() {
    string s;
    cin >> s;
    int n = s.size();
    vector<vector<int>> at(10);
    for (int i = 0; i < n; i++) at[s[i] - '0'].push_back(i);
    vector<int> dist(n, -1);
    vector<bool> used(10, false);
    deque<int> q;
    dist[0] = 0;
    q.push_back(0);
    while (!q.empty()) {
        int i = q.front();
        q.pop_front();
        int d = s[i] - '0';
        vector<int> next = {i - 1, i + 1};
        if (!used[d]) {
            used[d] = true;
            for (int j : at[d]) next.push_back(j);
        }
        for (int j : next)
            if (j >= 0 && j < n && dist[j] < 0) {
                dist[j] = dist[i] + 1;
                q.push_back(j);
            }
    }
    cout << dist[n - 1] << "\n";
}
