#include "testlib.h"

int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    long long n = inf.readLong();
    long long jury = ans.readLong();
    long long d = ouf.readLong();
    if (jury == -1) {
        if (d != -1) quitf(_wa, "n = %lld is prime, but %lld was printed", n, d);
        quitf(_ok, "prime");
    }
    if (d == -1) quitf(_wa, "n = %lld has divisor %lld, but -1 was printed", n, jury);
    if (d <= 1 || d >= n) quitf(_wa, "%lld is not in (1, n)", d);
    if (n % d != 0) quitf(_wa, "%lld does not divide %lld", d, n);
    quitf(_ok, "divisor %lld", d);
}
