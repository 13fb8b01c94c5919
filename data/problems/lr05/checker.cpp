#include "testlib.h"

// One integer: the smallest period.
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    int expected = ans.readInt();
    int found = ouf.readInt();
    if (expected != found) quitf(_wa, "expected period %d, found %d", expected, found);
    if (!ouf.seekEof()) quitf(_pe, "extra output after the answer");
    quitf(_ok, "period %d", found);
}
