#include <bits/stdc++.h>
int main() {
    int n, zeros = 0;
    std::cin >> n;
    for (int i = 0; i < n; i++) {
        int x;
        std::cin >> x;
        zeros += x == 0;
    }
    std::cout << zeros << "\n";
}
