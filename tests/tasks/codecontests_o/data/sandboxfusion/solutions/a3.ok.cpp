#include <bits/stdc++.h>
using namespace std;
// Each hint is true on some intervals of n in [1, 1e9]: count, for the best n, how many are true.
int main() {
    int t;
    cin >> t;
    const long long LO = 1, HI = 1000000000LL;
    while (t--) {
        int k;
        cin >> k;
        vector<pair<long long, int>> events;  // +1 at the start of an interval, -1 after its end
        auto add = [&](long long a, long long b) {
            a = max(a, LO), b = min(b, HI);
            if (a <= b) events.push_back({a, 1}), events.push_back({b + 1, -1});
        };
        for (int i = 0; i < k; i++) {
            string op, value;
            long long l;
            cin >> op >> l >> value;
            bool yes = value == "Yes";
            if (op == "<") {
                if (yes) add(LO, l - 1); else add(l, HI);
            } else if (op == ">") {
                if (yes) add(l + 1, HI); else add(LO, l);
            } else {
                if (yes) add(l, l); else add(LO, l - 1), add(l + 1, HI);
            }
        }
        sort(events.begin(), events.end());
        int best = 0, cur = 0;
        for (size_t i = 0; i < events.size(); i++) {
            cur += events[i].second;
            if (i + 1 == events.size() || events[i + 1].first != events[i].first) best = max(best, cur);
        }
        cout << k - best << "\n";
    }
}
