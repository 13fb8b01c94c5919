#include <cstdio>
#include <cmath>
#include <vector>

struct Point { long long x, y; };

double len(Point a, Point b) {
    double dx = (double)(a.x - b.x), dy = (double)(a.y - b.y);
    return sqrt(dx * dx + dy * dy);
}

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    std::vector<Point> P(n);
    for (int i = 0; i < n; i++) scanf("%lld %lld", &P[i].x, &P[i].y);
    long long twice = 0;
    double per = 0;
    for (int i = 0; i < n; i++) {
        Point a = P[i], b = P[(i + 1) % n];
        twice += a.x * b.y - b.x * a.y;
        per += len(a, b);
    }
    if (twice < 0) twice = -twice;
    printf("%.6f %.6f\n", twice / 2.0, per);
    return 0;
}
