#include <cstdio>

int main() {
    int n, best = 1000, at = 1;
    std::scanf("%d", &n);
    for (int i = 1; i <= n; ++i) {
        int x;
        std::scanf("%d", &x);
        if (x < best) { best = x; at = i; }
    }
    std::printf("%d\n", at);
}
