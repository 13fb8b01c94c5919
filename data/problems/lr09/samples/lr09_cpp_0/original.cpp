#include <bits/stdc++.h>
using namespace std;
typedef long long ll;
#define F first
#define S second

const int N = 50005;
pair<int, int> a[N];

inline int readInt() {
    register int x = 0;
    register char c = getchar();
    while (c < '0' || c > '9') c = getchar();
    while (c >= '0' && c <= '9') x = x * 10 + (c - '0'), c = getchar();
    return x;
}

bool cmp(const pair<int, int> &p, const pair<int, int> &q) {
    if (p.S != q.S) return p.S < q.S;
    return p.F < q.F;
}

int main() {
    int n = readInt();
    for (int i = 0; i < n; i++) {
        a[i].F = readInt();
        a[i].S = readInt();
    }
    sort(a, a + n, cmp);
    int cnt = 0;
    ll last = -1;
    for (int i = 0; i < n; i++) {
        if (a[i].F >= last) {
            cnt++;
            last = a[i].S;
        }
    }
    printf("%d\n", cnt);
    return 0;
}
