#include <bits/stdc++.h>
int main() {
    int n, positive = 0;
    std::cin >> n;
    for (int i = 0; i < n; i++) {
        int x;
        std::cin >> x;
        positive += x > 0;
    }
    std::cout << positive << "\n";
}
