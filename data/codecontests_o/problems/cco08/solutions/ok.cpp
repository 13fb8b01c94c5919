#include <bits/stdc++.h>
int main() {
    int t;
    std::cin >> t;
    while (t--) {
        std::string x;
        std::cin >> x;
        std::cout << ((x.back() - '0') % 2 == 0 ? "yes" : "no") << "\n";
    }
}
