#include "testlib.h"

#include <set>

using namespace std;

int main(int argc, char* argv[]) {
    registerValidation(argc, argv);
    int n = inf.readInt(1, 50000, "n");
    inf.readSpace();
    int k = inf.readInt(1, 5, "k");
    inf.readEoln();
    vector<int> jumps = inf.readInts(k, 1, 50, "s");
    inf.readEoln();
    ensuref(set<int>(jumps.begin(), jumps.end()).size() == jumps.size(), "jump lengths must be distinct");
    int b = inf.readInt(0, n - 1, "b");
    set<int> broken;
    for (int i = 0; i < b; i++) {
        inf.readSpace();
        broken.insert(inf.readInt(1, n - 1, "w"));
    }
    inf.readEoln();
    ensuref(static_cast<int>(broken.size()) == b, "broken steps must be distinct");
    inf.readEof();
    return 0;
}
