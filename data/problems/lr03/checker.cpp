#include "testlib.h"

// Area and perimeter, each with absolute or relative error up to 1e-6.
const double EPS = 1e-6;

int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    const char* names[] = {"area", "perimeter"};
    for (const char* name : names) {
        double expected = ans.readDouble();
        double found = ouf.readDouble();
        if (!doubleCompare(expected, found, EPS)) {
            quitf(_wa, "%s: expected %.9f, found %.9f", name, expected, found);
        }
    }
    if (!ouf.seekEof()) quitf(_pe, "extra output after the two numbers");
    quitf(_ok, "area and perimeter match");
}
