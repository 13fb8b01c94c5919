#include "testlib.h"

#include <algorithm>
#include <utility>
#include <vector>

using namespace std;

// Types: random (start in [0, maxc), length in [1, maxlen]), touching (a back-to-back
// schedule cut at random points, plus noise: many lectures start exactly when one ends),
// nested (intervals sharing one centre).
int main(int argc, char* argv[]) {
    registerGen(argc, argv, 1);
    int n = opt<int>("n");
    int maxc = opt<int>("maxc", 1000000000);
    int maxlen = opt<int>("maxlen", 1000);
    string type = opt<string>("type", "random");

    vector<pair<int, int>> meetings;
    if (type == "touching") {
        int chain = max(1, n / 2);
        vector<int> cuts = rnd.distinct(chain + 1, maxc + 1);
        sort(cuts.begin(), cuts.end());
        for (int i = 0; i < chain; i++) meetings.emplace_back(cuts[i], cuts[i + 1]);
    } else if (type == "nested") {
        int centre = maxc / 2;
        for (int i = 0; i < n; i++) {
            int half = rnd.next(1, min(maxlen, centre));
            meetings.emplace_back(centre - half, centre + half);
        }
    }
    while (static_cast<int>(meetings.size()) < n) {
        int len = rnd.next(1, min(maxlen, maxc));
        int l = rnd.next(0, maxc - len);
        meetings.emplace_back(l, l + len);
    }
    shuffle(meetings.begin(), meetings.end());

    println(n);
    for (auto& m : meetings) println(m.first, m.second);
    return 0;
}
