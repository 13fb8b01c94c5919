#include <bits/stdc++.h>
int main() {
    int n;
    scanf("%d", &n);
    double sum = 0;
    for (int i = 0; i < n; i++) {
        double a, b;
        scanf("%lf %lf", &a, &b);
        sum += a / b;
    }
    printf("%.9f\n", sum / n);
}
