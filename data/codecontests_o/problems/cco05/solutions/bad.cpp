#include <bits/stdc++.h>
int main() {
    int n;
    scanf("%d", &n);
    long long best = 0;
    for (int i = 0; i < n; i++) {
        long long x;
        scanf("%lld", &x);
        best = std::max(best, x);
    }
    printf("%lld\n", best);
}
