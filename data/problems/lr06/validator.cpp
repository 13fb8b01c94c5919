#include "testlib.h"

#include <string>

using namespace std;

int main(int argc, char* argv[]) {
    registerValidation(argc, argv);
    int n = inf.readInt(1, 250, "n");
    inf.readSpace();
    int m = inf.readInt(1, 250, "m");
    inf.readEoln();
    ensuref(n * m >= 2, "the grid must have at least two cells");

    int starts = 0, targets = 0;
    for (int i = 0; i < n; i++) {
        string row = inf.readToken(format("[.#ST]{%d}", m), "row");
        inf.readEoln();
        for (char c : row) {
            starts += c == 'S';
            targets += c == 'T';
        }
    }
    ensuref(starts == 1, "exactly one S expected, found %d", starts);
    ensuref(targets == 1, "exactly one T expected, found %d", targets);
    inf.readEof();
    return 0;
}
