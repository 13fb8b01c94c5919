#include <bits/stdc++.h>
using namespace std;
int main() {
    long long n;
    cin >> n;
    for (long long d = 2; d * d <= n; d++) {
        if (n % d == 0) {
            cout << n / d << "\n";  // the largest proper divisor: another valid answer
            return 0;
        }
    }
    cout << -1 << "\n";
}
