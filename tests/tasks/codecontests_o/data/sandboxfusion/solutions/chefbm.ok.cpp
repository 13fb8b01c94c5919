#include <bits/stdc++.h>
using namespace std;
int main() {
    long long n, m;
    int p;
    scanf("%lld %lld %d", &n, &m, &p);
    map<long long, map<long long, long long>> inc;  // row -> column -> increments
    for (int k = 0; k < p; k++) {
        long long i, j;
        scanf("%lld %lld", &i, &j);
        if (i >= 1 && i <= n) inc[i][j]++;  // a column outside 1..m still counts in the checks, as the original solution does
    }
    for (long long i = 1; i <= n; i++) {
        auto it = inc.find(i);
        if (it == inc.end()) {
            printf("%lld\n", m - 1);
            continue;
        }
        auto& row = it->second;
        auto value = [&](long long j) {
            auto f = row.find(j);
            return j + (f == row.end() ? 0 : f->second);
        };
        bool ok = true;
        for (auto& [j, c] : row) {
            if (j > 1 && value(j - 1) > value(j)) ok = false;
            if (j < m && value(j) > value(j + 1)) ok = false;
        }
        if (ok) printf("%lld\n", value(m) - value(1));
        else printf("-1\n");
    }
}
