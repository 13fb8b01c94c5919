#include "testlib.h"
#include <string>

using namespace std;

// Strings. type: random (alphabet of k letters) | periodic (a random block of length p
// repeated, then cut to n; with -mutate 1 one letter is changed) | unary (one letter) |
// almost (n-1 equal letters then a different one) | fib (Fibonacci word over a, b)
int main(int argc, char* argv[]) {
    registerGen(argc, argv, 1);
    int n = opt<int>("n");
    int k = opt<int>("k", 26);
    int p = opt<int>("p", 1);
    int mutate = opt<int>("mutate", 0);
    string type = opt<string>("type", "random");

    string s;
    if (type == "periodic") {
        string block;
        for (int i = 0; i < p; i++) block += char('a' + rnd.next(k));
        while (int(s.size()) < n) s += block;
        s.resize(n);
        if (mutate) {
            int at = rnd.next(n);
            s[at] = char('a' + (s[at] - 'a' + 1) % 26);
        }
    } else if (type == "unary") {
        s = string(n, 'z');
    } else if (type == "almost") {
        s = string(n - 1, 'a') + "b";
    } else if (type == "fib") {
        string a = "a", b = "ab";
        while (int(b.size()) < n) {
            string c = b + a;
            a = b;
            b = c;
        }
        s = b.substr(0, n);
    } else {
        for (int i = 0; i < n; i++) s += char('a' + rnd.next(k));
    }
    printf("%s\n", s.c_str());
    return 0;
}
