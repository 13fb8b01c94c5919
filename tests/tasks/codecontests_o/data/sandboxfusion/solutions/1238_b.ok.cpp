#include <bits/stdc++.h>
using namespace std;
int main() {
    int q;
    scanf("%d", &q);
    while (q--) {
        int n;
        long long r;
        scanf("%d %lld", &n, &r);
        vector<long long> x(n);
        for (auto& v : x) scanf("%lld", &v);
        sort(x.rbegin(), x.rend());
        x.erase(unique(x.begin(), x.end()), x.end());
        long long shots = 0;
        for (long long v : x) {
            if (v - shots * r <= 0) break;
            shots++;
        }
        printf("%lld\n", shots);
    }
}
