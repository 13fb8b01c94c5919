#include <cstdio>
int main() {
    long long r;
    scanf("%lld", &r);
    printf("%.9f\n", 3.14 * r * r);
}
