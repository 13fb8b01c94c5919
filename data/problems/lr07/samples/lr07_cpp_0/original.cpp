#include <bits/stdc++.h>
using namespace std;

#define MOD 1000000007
#define ll long long

ll dp[50005];
bool bad[50005];
int s[10];

int main()
{
    ios::sync_with_stdio(0);
    cin.tie(0);
    int n, k, b;
    cin >> n >> k;
    for (int i = 0; i < k; i++) cin >> s[i];
    cin >> b;
    for (int i = 0; i < b; i++) {
        int w; cin >> w;
        bad[w] = 1;
    }
    dp[0] = 1;
    for (int i = 1; i <= n; i++) {
        if (bad[i]) { dp[i] = 0; continue; }
        ll sum = 0;
        for (int j = 0; j < k; j++) {
            if (i - s[j] >= 0) sum += dp[i - s[j]];
        }
        dp[i] = sum % MOD;
    }
    cout << dp[n] << endl;
    return 0;
}
