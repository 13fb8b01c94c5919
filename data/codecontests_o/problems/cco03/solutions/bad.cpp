#include <bits/stdc++.h>
int main() {
    long long n;
    std::cin >> n;
    std::cout << 1 << "\n";
}
