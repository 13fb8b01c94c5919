#include "testlib.h"

int main(int argc, char* argv[]) {
    registerValidation(argc, argv);
    int n = inf.readInt(1, 20000, "n");
    inf.readEoln();
    for (int i = 0; i < n; i++) {
        int l = inf.readInt(0, 1000000000, "l");
        inf.readSpace();
        inf.readInt(l + 1, 1000000000, "r");
        inf.readEoln();
    }
    inf.readEof();
    return 0;
}
