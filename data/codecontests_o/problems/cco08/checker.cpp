#include "testlib.h"

int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    int t = inf.readInt();
    for (int i = 1; i <= t; i++) {
        std::string jury = upperCase(ans.readToken());
        std::string found = upperCase(ouf.readToken());
        if (found != "YES" && found != "NO") quitf(_pe, "answer %d: YES or NO expected, found %s", i, found.c_str());
        if (jury != found) quitf(_wa, "answer %d: expected %s, found %s", i, jury.c_str(), found.c_str());
    }
    quitf(_ok, "%d answers", t);
}
