#include <bits/stdc++.h>
using namespace std;
typedef long long ll;
int main() {
    ll t1, t2, x1, x2, t0;
    cin >> t1 >> t2 >> x1 >> x2 >> t0;
    if (t1 == t0 && t2 == t0) { cout << x1 << " " << x2 << "\n"; return 0; }
    if (t1 == t0) { cout << x1 << " 0\n"; return 0; }
    if (t2 == t0) { cout << "0 " << x2 << "\n"; return 0; }
    // best temperature difference as a fraction num/den (den = y1 + y2), ties: the larger total
    ll by1 = 0, by2 = x2;
    __int128 bnum = (__int128)(t2 - t0) * x2, bden = x2;
    for (ll y1 = 1; y1 <= x1; y1++) {
        ll y2 = (y1 * (t0 - t1) + (t2 - t0) - 1) / (t2 - t0);
        if (y2 > x2) break;
        __int128 num = (__int128)t1 * y1 + (__int128)t2 * y2 - (__int128)t0 * (y1 + y2), den = y1 + y2;
        __int128 lhs = num * bden, rhs = bnum * den;
        if (lhs < rhs || (lhs == rhs && den > bden)) { bnum = num; bden = den; by1 = y1; by2 = y2; }
    }
    cout << by1 << " " << by2 << "\n";
}
