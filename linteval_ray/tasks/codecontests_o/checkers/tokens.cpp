// The strict profile's comparison for a CodeContests-O problem without a checker (linteval-ray,
// docs/tasks.md): the output and the expected answer as sequences of whitespace-separated tokens,
// accepted when both have the same number of tokens and each pair is equal: byte for byte, or,
// when both are decimal numbers and either is not an integer, as doubles within 1e-6 (absolute or
// relative, testlib's doubleCompare). Case matters: "YES" is not "yes" (a problem that accepts
// either says so in its checker).
#include "testlib.h"

#include <cmath>
#include <cstdlib>
#include <string>

static const double EPS = 1E-6;

// A decimal number: sign, digits, an optional fraction and exponent (no hex, inf or nan).
static bool is_number(const std::string& s, bool& integer) {
    size_t i = 0, n = s.size();
    if (i < n && (s[i] == '+' || s[i] == '-')) i++;
    size_t digits = 0;
    while (i < n && isdigit((unsigned char)s[i])) i++, digits++;
    integer = true;
    if (i < n && s[i] == '.') {
        integer = false;
        i++;
        while (i < n && isdigit((unsigned char)s[i])) i++, digits++;
    }
    if (digits == 0) return false;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        integer = false;
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) i++;
        size_t exponent = 0;
        while (i < n && isdigit((unsigned char)s[i])) i++, exponent++;
        if (exponent == 0) return false;
    }
    return i == n;
}

int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    int count = 0;
    while (!ans.seekEof()) {
        std::string expected = ans.readWord();
        count++;
        if (ouf.seekEof())
            quitf(_wa, "token %d: expected '%s', found the end of the output", count, compress(expected).c_str());
        std::string found = ouf.readWord();
        if (expected == found) continue;
        bool expected_integer = true, found_integer = true;
        if (is_number(expected, expected_integer) && is_number(found, found_integer) &&
            !(expected_integer && found_integer)) {
            double e = std::strtod(expected.c_str(), nullptr), f = std::strtod(found.c_str(), nullptr);
            if (std::isfinite(e) && std::isfinite(f) && doubleCompare(e, f, EPS)) continue;
        }
        quitf(_wa, "token %d: expected '%s', found '%s'", count, compress(expected).c_str(), compress(found).c_str());
    }
    if (!ouf.seekEof()) quitf(_wa, "the output has more than the answer's %d tokens", count);
    quitf(_ok, "%d tokens", count);
}
