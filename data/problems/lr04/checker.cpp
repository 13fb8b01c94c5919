#include "testlib.h"

// One integer: the number of compatible meetings.
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    int expected = ans.readInt();
    int found = ouf.readInt();
    if (expected != found) quitf(_wa, "expected %d meetings, found %d", expected, found);
    if (!ouf.seekEof()) quitf(_pe, "extra output after the answer");
    quitf(_ok, "%d meetings", found);
}
