#include <bits/stdc++.h>
using namespace std;
const long long MOD = 998244353;
int main() {
    int n;
    scanf("%d", &n);
    vector<int> a(n);
    for (auto& x : a) scanf("%d", &x);
    // dp[v][s]: ways with the last value v; s = 1 when it is already no larger than its left neighbour
    vector<array<long long, 2>> dp(201, {0, 0}), next(201);
    for (int v = 1; v <= 200; v++) if (a[0] == -1 || a[0] == v) dp[v][0] = 1;
    for (int i = 1; i < n; i++) {
        vector<long long> pre0(202, 0), pre1(202, 0);  // prefix sums over the previous value
        for (int v = 1; v <= 200; v++) {
            pre0[v] = (pre0[v - 1] + dp[v][0]) % MOD;
            pre1[v] = (pre1[v - 1] + dp[v][1]) % MOD;
        }
        for (int v = 1; v <= 200; v++) {
            next[v] = {0, 0};
            if (a[i] != -1 && a[i] != v) continue;
            // previous u < v: u is satisfied by v (any state); v is not yet satisfied
            next[v][0] = (pre0[v - 1] + pre1[v - 1]) % MOD;
            // previous u == v: both satisfied; u > v: u must be satisfied already
            next[v][1] = (dp[v][0] + dp[v][1] + (pre1[200] - pre1[v] + MOD)) % MOD;
        }
        dp = next;
    }
    long long total = 0;
    for (int v = 1; v <= 200; v++) total = (total + dp[v][1]) % MOD;
    printf("%lld\n", total);
}
