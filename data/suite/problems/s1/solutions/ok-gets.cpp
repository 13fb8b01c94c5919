#include <cstdio>

int main() {
    char line[64];
    gets(line);
    register long long a, b;
    sscanf(line, "%lld %lld", &a, &b);
    printf("%lld\n", a * b);
    return 0;
}
