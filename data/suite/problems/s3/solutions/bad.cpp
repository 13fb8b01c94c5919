#include <algorithm>
#include <cstdio>

int main() {
    int n, best = 0;
    std::scanf("%d", &n);
    for (int i = 0; i < n; ++i) {
        int x;
        std::scanf("%d", &x);
        best = std::max(best, x);
    }
    std::printf("%d\n", best);
}
