#include <cstdio>

int main() {
    unsigned long long n;
    std::scanf("%llu", &n);
    int sum = 0;
    for (; n > 0; n /= 10) sum += n % 10;
    std::printf("%d\n", sum);
}
