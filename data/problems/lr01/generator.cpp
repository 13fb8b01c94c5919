#include "testlib.h"
#include <algorithm>
#include <string>
#include <vector>

using namespace std;

// Stock changes and range queries. type: random | max | positive | point | full
int main(int argc, char* argv[]) {
    registerGen(argc, argv, 1);
    int n = opt<int>("n");
    int q = opt<int>("q");
    int maxv = opt<int>("maxv", 1000000000);
    string type = opt<string>("type", "random");

    vector<long long> a(n);
    for (int i = 0; i < n; i++) {
        if (type == "max") {
            a[i] = maxv;  // every prefix sum is as large as possible: needs 64 bits
        } else if (type == "positive") {
            a[i] = rnd.next(1, maxv);
        } else {
            a[i] = rnd.next(-maxv, maxv);
        }
    }
    printf("%d %d\n", n, q);
    for (int i = 0; i < n; i++) {
        printf("%lld%c", a[i], i + 1 == n ? '\n' : ' ');
    }
    for (int i = 0; i < q; i++) {
        int l, r;
        if (type == "point") {
            l = r = rnd.next(1, n);
        } else if (type == "full" || (type == "max" && i % 2 == 0)) {
            l = 1;
            r = n;
        } else {
            l = rnd.next(1, n);
            r = rnd.next(1, n);
            if (l > r) swap(l, r);
        }
        printf("%d %d\n", l, r);
    }
    return 0;
}
