#include <bits/stdc++.h>
int main() {
    int n;
    scanf("%d", &n);
    long long total = 0, best = LLONG_MIN;
    for (int i = 0; i < n; i++) {
        long long x;
        scanf("%lld", &x);
        total += x;
        best = std::max(best, total);
    }
    printf("%lld\n", best);
}
