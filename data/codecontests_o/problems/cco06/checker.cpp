#include "testlib.h"

int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    int jury = ans.readInt();
    int found = ouf.readInt();
    ensuref(jury > 0, "the answer must be positive");  // wrong: an array may hold no zero
    if (jury != found) quitf(_wa, "expected %d, found %d", jury, found);
    quitf(_ok, "%d", found);
}
