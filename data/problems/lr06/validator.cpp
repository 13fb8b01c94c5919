#include "testlib.h"

using namespace std;

int main(int argc, char* argv[]) {
    registerValidation(argc, argv);
    int n = inf.readInt(1, 250, "n");
    inf.readSpace();
    int m = inf.readInt(1, 250, "m");
    inf.readEoln();
    for (int i = 0; i < n; i++) {
        inf.readToken(format("[.#]{%d}", m), "row");
        inf.readEoln();
    }
    inf.readEof();
    return 0;
}
