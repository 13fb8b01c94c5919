#include "testlib.h"

int main(int argc, char* argv[]) {
    registerValidation(argc, argv);
    int n = inf.readInt(1, 10000, "n");
    inf.readSpace();
    int m = inf.readInt(0, 20000, "m");
    inf.readEoln();
    for (int i = 0; i < m; i++) {
        int a = inf.readInt(1, n, "a");
        inf.readSpace();
        int b = inf.readInt(1, n, "b");
        inf.readEoln();
        ensuref(a != b, "dependency %d is a self-loop", i + 1);
    }
    inf.readEof();
    return 0;
}
