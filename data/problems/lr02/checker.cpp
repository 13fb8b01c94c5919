#include "testlib.h"

// One integer: the shortest travel time or -1.
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    long long expected = ans.readLong();
    long long found = ouf.readLong();
    if (expected != found) quitf(_wa, "expected %lld, found %lld", expected, found);
    if (!ouf.seekEof()) quitf(_pe, "extra output after the answer");
    quitf(_ok, "answer %lld", found);
}
