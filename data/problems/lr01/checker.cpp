#include "testlib.h"

// Exact comparison of the q answers as signed 64-bit integers.
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    int q = 0;
    while (!ans.seekEof()) {
        long long expected = ans.readLong();
        long long found = ouf.readLong();
        q++;
        if (expected != found) {
            quitf(_wa, "query %d: expected %lld, found %lld", q, expected, found);
        }
    }
    if (!ouf.seekEof()) quitf(_pe, "extra output after %d answers", q);
    quitf(_ok, "%d answers", q);
}
