#include <cstdio>
#include <cstdlib>

long long *prefix = 0;
int width = 0;

long long &at(int r, int c)
{
    return prefix[r * (width + 1) + c];
}

void build(int *values, int n, int m)
{
    width = m;
    prefix = (long long *)calloc((n + 1) * (m + 1), sizeof(long long));
    for (int i = 1; i <= n; ++i)
        for (int j = 1; j <= m; ++j)
            at(i, j) = at(i - 1, j) + at(i, j - 1) - at(i - 1, j - 1) + values[(i - 1) * m + (j - 1)];
}

long long query(int r1, int c1, int r2, int c2)
{
    return at(r2, c2) - at(r1 - 1, c2) - at(r2, c1 - 1) + at(r1 - 1, c1 - 1);
}

int main()
{
    int n, m, q;
    if (scanf("%d %d %d", &n, &m, &q) != 3) return 1;
    int *values = (int *)malloc(sizeof(int) * n * m);
    for (int i = 0; i < n * m; ++i)
        scanf("%d", &values[i]);
    build(values, n, m);
    free(values);
    for (int i = 0; i < q; ++i) {
        int r1, c1, r2, c2;
        scanf("%d %d %d %d", &r1, &c1, &r2, &c2);
        printf("%lld\n", query(r1, c1, r2, c2));
    }
    free(prefix);
    return 0;
}
