#include <bits/stdc++.h>
using namespace std;
int main() {
    int t;
    cin >> t;
    while (t--) {
        long long a, b;
        int q;
        cin >> a >> b >> q;
        long long p = a * b;
        vector<long long> pre(p + 1, 0);
        for (long long x = 0; x < p; x++) pre[x + 1] = pre[x] + (((x % a) % b) != ((x % b) % a));
        auto count = [&](long long r) { return (r / p) * pre[p] + pre[r % p + 1]; };
        for (int i = 0; i < q; i++) {
            long long l, r;
            cin >> l >> r;
            cout << count(r) - count(l - 1) << ' ';
        }
        cout << '\n';
    }
}
