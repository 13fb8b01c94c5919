#include "testlib.h"

// Exact comparison of two sequences of 64-bit integers (like testlib's ncmp).
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    int count = 0;
    while (!ans.seekEof()) {
        long long expected = ans.readLong();
        if (ouf.seekEof()) quitf(_wa, "only %d answers, expected more", count);
        long long found = ouf.readLong();
        count++;
        if (expected != found) quitf(_wa, "answer %d: expected %lld, found %lld", count, expected, found);
    }
    if (!ouf.seekEof()) quitf(_wa, "extra output after %d answers", count);
    quitf(_ok, "%d answers", count);
}
