#include <bits/stdc++.h>
int main() {
    long long r;
    std::cin >> r;
    const double pi = acos(-1.0);
    std::cout << std::fixed << std::setprecision(7) << pi * r * r << "\n";
}
