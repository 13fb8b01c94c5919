#include "testlib.h"

#include <string>

using namespace std;

// Exact token-by-token comparison (like testlib's wcmp).
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    int count = 0;
    while (!ans.seekEof()) {
        string expected = ans.readWord();
        if (ouf.seekEof()) quitf(_wa, "answer too short: expected %d-th token '%s'", count + 1, expected.c_str());
        string found = ouf.readWord();
        count++;
        if (expected != found)
            quitf(_wa, "%d-th token differs: expected '%s', found '%s'", count, expected.c_str(), found.c_str());
    }
    if (!ouf.seekEof()) quitf(_wa, "participant output has extra tokens after %d", count);
    quitf(_ok, "%d token(s) match", count);
}
