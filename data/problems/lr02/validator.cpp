#include "testlib.h"
#include <string>

int main(int argc, char* argv[]) {
    registerValidation(argc, argv);
    int h = inf.readInt(1, 300, "h");
    inf.readSpace();
    int w = inf.readInt(1, 300, "w");
    inf.readEoln();
    ensuref(h * w >= 2, "the map needs room for S and T");
    int starts = 0, targets = 0;
    for (int i = 0; i < h; i++) {
        std::string row = inf.readLine("[.#ST]{" + std::to_string(w) + "}", "row");
        for (char c : row) {
            starts += c == 'S';
            targets += c == 'T';
        }
    }
    ensuref(starts == 1 && targets == 1, "need exactly one S and one T, got %d and %d", starts, targets);
    inf.readEof();
    return 0;
}
