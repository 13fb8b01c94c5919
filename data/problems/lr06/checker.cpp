#include "testlib.h"

// Exact checker: one integer (the distance, or -1), nothing else.
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    long long expected = ans.readLong();
    long long found = ouf.readLong();
    if (!ouf.seekEof()) quitf(_pe, "extra output after the answer");
    if (expected != found) quitf(_wa, "expected %lld, found %lld", expected, found);
    quitf(_ok, "answer is %lld", found);
}
