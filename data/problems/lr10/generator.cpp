#include "testlib.h"

#include <algorithm>
#include <vector>

using namespace std;

// Types: random (uniform corners), wide (rectangles covering most of the orchard: summing
// each rectangle cell by cell is far too slow), point (single trees). maxv bounds |v|.
int main(int argc, char* argv[]) {
    registerGen(argc, argv, 1);
    int n = opt<int>("n");
    int m = opt<int>("m");
    int q = opt<int>("q");
    int maxv = opt<int>("maxv", 1000000000);
    string type = opt<string>("type", "random");

    println(n, m, q);
    for (int i = 0; i < n; i++) {
        vector<int> row(m);
        for (int& v : row) v = rnd.next(-maxv, maxv);
        println(row);
    }
    auto span = [&](int size, int& lo, int& hi) {
        if (type == "wide") {
            lo = rnd.next(1, max(1, size / 10));
            hi = rnd.next(min(size, size - size / 10), size);
        } else if (type == "point") {
            lo = hi = rnd.next(1, size);
        } else {
            lo = rnd.next(1, size);
            hi = rnd.next(1, size);
            if (lo > hi) swap(lo, hi);
        }
    };
    for (int i = 0; i < q; i++) {
        int r1, r2, c1, c2;
        span(n, r1, r2);
        span(m, c1, c2);
        println(r1, c1, r2, c2);
    }
    return 0;
}
