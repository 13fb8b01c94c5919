#include <bits/stdc++.h>
using namespace std;
typedef long long ll;
#define ALL(v) v.begin(), v.end()

const int N = 20005;
int L[N], R[N];

inline int readInt() {
    register int x = 0;
    register char c = getchar();
    while (c < '0' || c > '9') c = getchar();
    while (c >= '0' && c <= '9') x = x * 10 + (c - '0'), c = getchar();
    return x;
}

int main() {
    int n = readInt();
    for (int i = 0; i < n; i++) {
        L[i] = readInt();
        R[i] = readInt();
    }
    sort(L, L + n);
    sort(R, R + n);
    // a lecture ending at t frees its hall for one starting at t
    int i = 0, j = 0, cur = 0, best = 0;
    while (i < n) {
        if (L[i] < R[j]) {
            cur++, i++;
            best = max(best, cur);
        } else {
            cur--, j++;
        }
    }
    printf("%d\n", best);
    return 0;
}
