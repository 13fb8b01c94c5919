#include "testlib.h"

#include <string>
#include <utility>
#include <vector>

using namespace std;

// Any valid answer: the participant's order is checked against the dependencies in the
// input; the jury's answer only says whether an order exists.
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    int n = inf.readInt();
    int m = inf.readInt();
    vector<pair<int, int>> deps(m);
    for (auto& d : deps) {
        d.first = inf.readInt();
        d.second = inf.readInt();
    }

    bool juryPossible = ans.readToken() != "IMPOSSIBLE";
    string first = ouf.readToken("IMPOSSIBLE|[0-9]{1,6}", "first token");
    if (first == "IMPOSSIBLE") {
        if (!ouf.seekEof()) quitf(_pe, "extra output after IMPOSSIBLE");
        if (juryPossible) quitf(_wa, "participant says IMPOSSIBLE but a valid order exists");
        quitf(_ok, "correctly reported IMPOSSIBLE");
    }

    vector<int> pos(n + 1, -1);
    for (int i = 0; i < n; i++) {
        int task = i == 0 ? atoi(first.c_str()) : ouf.readInt(1, n, "task");
        if (task < 1 || task > n) quitf(_wa, "task %d out of range [1, %d]", task, n);
        if (pos[task] != -1) quitf(_wa, "task %d listed twice", task);
        pos[task] = i;
    }
    if (!ouf.seekEof()) quitf(_pe, "extra output after %d tasks", n);
    for (int i = 0; i < m; i++)
        if (pos[deps[i].first] > pos[deps[i].second])
            quitf(_wa, "dependency %d (%d before %d) is violated", i + 1, deps[i].first, deps[i].second);
    if (!juryPossible) quitf(_fail, "participant found a valid order but the jury says IMPOSSIBLE");
    quitf(_ok, "valid order of %d tasks", n);
}
