#include "testlib.h"

int main(int argc, char* argv[]) {
    registerValidation(argc, argv);
    int n = inf.readInt(1, 300, "n");
    inf.readSpace();
    int m = inf.readInt(1, 300, "m");
    inf.readSpace();
    int q = inf.readInt(1, 50000, "q");
    inf.readEoln();
    for (int i = 0; i < n; i++) {
        inf.readInts(m, -1000000000, 1000000000, "v");
        inf.readEoln();
    }
    for (int i = 0; i < q; i++) {
        int r1 = inf.readInt(1, n, "r1");
        inf.readSpace();
        int c1 = inf.readInt(1, m, "c1");
        inf.readSpace();
        inf.readInt(r1, n, "r2");
        inf.readSpace();
        inf.readInt(c1, m, "c2");
        inf.readEoln();
    }
    inf.readEof();
    return 0;
}
