#include "testlib.h"

// Exact checker for a single integer answer.
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    int expected = ans.readInt();
    int found = ouf.readInt();
    if (!ouf.seekEof()) quitf(_pe, "extra output after the answer");
    if (found != expected) quitf(_wa, "expected %d halls, found %d", expected, found);
    quitf(_ok, "%d halls", found);
}
