#include <cstdio>
#include <cstdlib>

long long *prefix = 0;

void build(int *values, int n)
{
    prefix = (long long *)malloc(sizeof(long long) * (n + 1));
    prefix[0] = 0;
    for (int i = 1; i <= n; ++i)
        prefix[i] = prefix[i - 1] + values[i - 1];
}

long long query(int l, int r)
{
    return prefix[r] - prefix[l - 1];
}

int main()
{
    int n, q;
    if (scanf("%d %d", &n, &q) != 2) return 1;
    int *values = (int *)malloc(sizeof(int) * n);
    for (int i = 0; i < n; ++i)
        scanf("%d", &values[i]);
    build(values, n);
    free(values);
    for (int i = 0; i < q; ++i) {
        int l, r;
        scanf("%d %d", &l, &r);
        printf("%lld\n", query(l, r));
    }
    free(prefix);
    return 0;
}
