#include "testlib.h"
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

using namespace std;

// Polygons. type: star (sorted random angles, random radii in [r/2, r]) | circle (radius r) |
// triangle (3 random points in [-r, r]^2) | rect (axis-parallel rectangle)
int main(int argc, char* argv[]) {
    registerGen(argc, argv, 1);
    int n = opt<int>("n");
    int r = opt<int>("r");
    string type = opt<string>("type", "star");

    vector<pair<long long, long long>> pts;
    if (type == "triangle") {
        while (pts.size() < 3) {
            pair<long long, long long> p(rnd.next(-r, r), rnd.next(-r, r));
            if (find(pts.begin(), pts.end(), p) == pts.end()) pts.push_back(p);
        }
    } else if (type == "rect") {
        long long w = rnd.next(1, r), h = rnd.next(1, r);
        pts = {{-w, -h}, {w, -h}, {w, h}, {-w, h}};
    } else {
        vector<double> ang(n);
        for (auto& a : ang) a = rnd.next(0.0, 2 * M_PI);
        sort(ang.begin(), ang.end());
        for (int i = 0; i < n; i++) {
            double rad = type == "circle" ? r : rnd.next(r / 2.0, double(r));
            pair<long long, long long> p(llround(rad * cos(ang[i])), llround(rad * sin(ang[i])));
            if (pts.empty() || pts.back() != p) pts.push_back(p);
        }
        while (pts.size() > 3 && pts.back() == pts.front()) pts.pop_back();
    }
    printf("%d\n", int(pts.size()));
    for (auto& p : pts) printf("%lld %lld\n", p.first, p.second);
    return 0;
}
