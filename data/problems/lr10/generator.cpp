#include "testlib.h"

#include <algorithm>
#include <vector>

using namespace std;

// Types: random (uniform query ends), wide (queries cover most of the shelf: a per-query
// loop over the range is quadratic), point (l == r). maxv bounds |a_i|.
int main(int argc, char* argv[]) {
    registerGen(argc, argv, 1);
    int n = opt<int>("n");
    int q = opt<int>("q");
    int maxv = opt<int>("maxv", 1000000000);
    string type = opt<string>("type", "random");

    vector<int> a(n);
    for (int& v : a) v = rnd.next(-maxv, maxv);
    println(n, q);
    println(a);
    for (int i = 0; i < q; i++) {
        int l, r;
        if (type == "wide") {
            l = rnd.next(1, max(1, n / 10));
            r = rnd.next(min(n, n - n / 10), n);
        } else if (type == "point") {
            l = r = rnd.next(1, n);
        } else {
            l = rnd.next(1, n);
            r = rnd.next(1, n);
            if (l > r) swap(l, r);
        }
        println(l, r);
    }
    return 0;
}
