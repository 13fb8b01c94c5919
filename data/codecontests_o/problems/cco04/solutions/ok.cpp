#include <bits/stdc++.h>
int main() {
    int n;
    scanf("%d", &n);
    long long d = 0, t = 0;
    for (int i = 0; i < n; i++) {
        long long a, b;
        scanf("%lld %lld", &a, &b);
        d += a;
        t += b;
    }
    printf("%.9f\n", (double)d / t);
}
