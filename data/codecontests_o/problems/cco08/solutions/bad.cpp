#include <bits/stdc++.h>
int main() {
    int t;
    std::cin >> t;
    while (t--) {
        unsigned long long x;
        std::cin >> x;
        std::cout << (x % 2 == 1 ? "YES" : "NO") << "\n";
    }
}
