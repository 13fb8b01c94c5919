#include "testlib.h"

int main(int argc, char* argv[]) {
    registerValidation(argc, argv);
    int n = inf.readInt(3, 100000, "n");
    inf.readEoln();
    long long fx = 0, fy = 0, px = 0, py = 0;
    for (int i = 0; i < n; i++) {
        long long x = inf.readInt(-1000000, 1000000, "x");
        inf.readSpace();
        long long y = inf.readInt(-1000000, 1000000, "y");
        inf.readEoln();
        if (i == 0) {
            fx = x;
            fy = y;
        } else {
            ensuref(x != px || y != py, "vertices %d and %d coincide", i, i + 1);
        }
        px = x;
        py = y;
    }
    ensuref(px != fx || py != fy, "the last vertex repeats the first");
    inf.readEof();
    return 0;
}
