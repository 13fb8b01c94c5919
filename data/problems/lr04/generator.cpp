#include "testlib.h"
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

using namespace std;

// Meeting requests. type: random (start in [0, maxt), length in [1, len]) | disjoint (short
// separate meetings: the answer is about n) | nested (all share the middle: the answer is 1) |
// chain (meetings that touch end to start)
int main(int argc, char* argv[]) {
    registerGen(argc, argv, 1);
    int n = opt<int>("n");
    int maxt = opt<int>("maxt", 1000000000);
    int len = opt<int>("len", 1000);
    string type = opt<string>("type", "random");

    vector<pair<int, int>> iv(n);
    for (int i = 0; i < n; i++) {
        if (type == "disjoint" || type == "chain") {
            int slot = maxt / n;  // one slot per meeting, generator commands keep slot >= 2
            int l = i * slot + (type == "chain" ? 0 : rnd.next(0, slot / 2 - 1));
            int r = type == "chain" ? l + slot : l + rnd.next(1, slot / 2);
            iv[i] = {l, r};
        } else if (type == "nested") {
            int mid = maxt / 2, d = rnd.next(1, mid);
            iv[i] = {mid - d, mid + rnd.next(1, mid)};
        } else {
            int l = rnd.next(0, maxt - 1);
            iv[i] = {l, min(maxt, l + rnd.next(1, len))};
        }
    }
    shuffle(iv.begin(), iv.end());
    printf("%d\n", n);
    for (auto& p : iv) printf("%d %d\n", p.first, p.second);
    return 0;
}
