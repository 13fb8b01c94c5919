#include <bits/stdc++.h>
using namespace std;

struct Meeting {
    int s, e;
};

bool cmp(const Meeting &a, const Meeting &b) {
    if (a.e != b.e) return a.e < b.e;
    return a.s < b.s;
}

int main() {
    ios_base::sync_with_stdio(0);
    cin.tie(0);
    int n;
    cin >> n;
    vector<Meeting> v(n);
    for (int i = 0; i < n; i++) cin >> v[i].s >> v[i].e;
    sort(v.begin(), v.end(), cmp);
    int cnt = 0, last = INT_MIN;
    for (int i = 0; i < n; i++) {
        if (v[i].s >= last) {
            cnt++;
            last = v[i].e;
        }
    }
    cout << cnt << endl;
    return 0;
}
