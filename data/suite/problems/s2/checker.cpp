#include "testlib.h"

// Wrong on purpose: the problem accepts any position of a largest element, but this checker wants the
// reference's (the first one).
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    int expected = ans.readInt();
    int got = ouf.readInt();
    if (got != expected) quitf(_wa, "expected position %d, found %d", expected, got);
    quitf(_ok, "position %d", got);
}
