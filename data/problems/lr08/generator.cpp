#include "testlib.h"

#include <algorithm>
#include <utility>
#include <vector>

using namespace std;

// Types: dag (random edges along a hidden order), chain (the hidden order as a path, plus
// random forward edges: the answer is unique), cycle (a dag plus a 3-cycle: IMPOSSIBLE).
int main(int argc, char* argv[]) {
    registerGen(argc, argv, 1);
    int n = opt<int>("n");
    int m = opt<int>("m");
    string type = opt<string>("type", "dag");

    vector<int> order(n);
    for (int i = 0; i < n; i++) order[i] = i + 1;
    shuffle(order.begin(), order.end());

    vector<pair<int, int>> edges;
    if (type == "chain")
        for (int i = 0; i + 1 < n; i++) edges.emplace_back(order[i], order[i + 1]);
    if (type == "cycle" && n >= 3) {
        vector<int> pos = rnd.distinct(3, n);
        sort(pos.begin(), pos.end());
        edges.emplace_back(order[pos[0]], order[pos[1]]);
        edges.emplace_back(order[pos[1]], order[pos[2]]);
        edges.emplace_back(order[pos[2]], order[pos[0]]);
    }
    while (static_cast<int>(edges.size()) < m && n >= 2) {
        int i = rnd.next(n), j = rnd.next(n);
        if (i == j) continue;
        if (i > j) swap(i, j);
        edges.emplace_back(order[i], order[j]);
    }
    shuffle(edges.begin(), edges.end());

    println(n, static_cast<int>(edges.size()));
    for (auto& e : edges) println(e.first, e.second);
    return 0;
}
