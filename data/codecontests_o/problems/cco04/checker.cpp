#include "testlib.h"

int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    double jury = ans.readDouble();
    double found = ouf.readDouble();
    if (!doubleCompare(jury, found, 1e-6)) quitf(_wa, "expected %.10f, found %.10f", jury, found);
    if (!ouf.seekEof()) quitf(_pe, "extra output");
    quitf(_ok, "%.10f", found);
}
