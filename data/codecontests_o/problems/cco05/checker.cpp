#include "testlib.h"

int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    long long jury = ans.readLong();
    long long found = ouf.readLong()
    if (jury != found) quitf(_wa, "expected %lld, found %lld", jury, found);
    quitf(_ok, "%lld", found);
}
