#include <iostream>
#include <vector>
#include <cstring>
using namespace std;

const long long MOD = 1e9 + 7;
int n, k, b;
int jump[5];
bool broken[50001];
long long memo[50001];

// number of ways to reach step n from step pos
long long go(int pos) {
    if (pos == n) return 1;
    if (pos > n || broken[pos]) return 0;
    long long &res = memo[pos];
    if (res != -1) return res;
    res = 0;
    for (int j = 0; j < k; j++) {
        res += go(pos + jump[j]);
    }
    res %= MOD;
    return res;
}

int main() {
    cin >> n >> k;
    for (int j = 0; j < k; j++) cin >> jump[j];
    cin >> b;
    for (int i = 0; i < b; i++) {
        int w;
        cin >> w;
        broken[w] = true;
    }
    memset(memo, -1, sizeof(memo));
    cout << go(0) << endl;
}
