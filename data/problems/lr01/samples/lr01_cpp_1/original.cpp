#include <iostream>
#include <vector>
using namespace std;

typedef long long LL;

int main() {
    ios::sync_with_stdio(0);
    cin.tie(0);
    int n, q;
    cin >> n >> q;
    vector<LL> s(n + 1, 0);
    for (int i = 1; i <= n; ++i) {
        int v;
        cin >> v;
        s[i] = s[i - 1] + (LL)v;
    }
    string out;
    out.reserve(q * 12);
    for (int k = 0; k < q; ++k) {
        int l, r;
        cin >> l >> r;
        LL ans = s[r] - s[l - 1];
        out += to_string(ans);
        out += '\n';
    }
    cout << out;
    return 0;
}
