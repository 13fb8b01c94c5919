#include <bits/stdc++.h>
int main() {
    int n;
    scanf("%d", &n);
    std::vector<long long> a(n);
    for (auto& x : a) scanf("%lld", &x);
    long long s = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) s += a[i] + a[j];  // a sum, not a xor
    printf("%lld\n", s);
}
