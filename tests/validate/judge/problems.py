"""A small testlib problem written for the judge tests: sum and mean of n integers.

Output: ``sum mean``; the checker compares the sum exactly and the mean with an
absolute/relative tolerance of 1e-6 (``wrong answer`` / ``presentation error`` as
testlib decides). ``WCMP_CHECKER`` is testlib's std token comparison for the
``sum``-only variant.
"""

from __future__ import annotations

from typing import Any

from linteval_ray.schema.record import Language, LintEvalRecord

GENERATOR = r"""
#include "testlib.h"
#include <cstdio>
int main(int argc, char* argv[]) {
    registerGen(argc, argv, 1);
    int n = opt<int>("n");
    int mx = opt<int>("max");
    printf("%d\n", n);
    for (int i = 0; i < n; i++) printf("%d%c", rnd.next(-mx, mx), i + 1 == n ? '\n' : ' ');
}
"""

VALIDATOR = r"""
#include "testlib.h"
int main(int argc, char* argv[]) {
    registerValidation(argc, argv);
    int n = inf.readInt(1, 1000, "n");
    inf.readEoln();
    for (int i = 0; i < n; i++) {
        inf.readInt(-1000000, 1000000, "a_i");
        if (i + 1 < n) inf.readSpace();
    }
    inf.readEoln();
    inf.readEof();
}
"""

REJECT_ALL_VALIDATOR = r"""
#include "testlib.h"
int main(int argc, char* argv[]) {
    registerValidation(argc, argv);
    inf.readInt(5000, 6000, "n");  // no generated input has n >= 5000
}
"""

TOLERANCE_CHECKER = r"""
#include "testlib.h"
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    long long js = ans.readLong();
    double jm = ans.readDouble();
    long long ps = ouf.readLong();
    double pm = ouf.readDouble();
    if (js != ps) quitf(_wa, "sum: expected %lld, found %lld", js, ps);
    if (!doubleCompare(jm, pm, 1e-6)) quitf(_wa, "mean: expected %.9f, found %.9f", jm, pm);
    quitf(_ok, "sum %lld", js);
}
"""

WCMP_CHECKER = r"""
#include "testlib.h"
using namespace std;
int main(int argc, char* argv[]) {
    setName("compare sequences of tokens");
    registerTestlibCmd(argc, argv);
    int n = 0;
    string j, p;
    while (!ans.seekEof() && !ouf.seekEof()) {
        n++;
        ans.readWordTo(j);
        ouf.readWordTo(p);
        if (j != p) quitf(_wa, "%d%s words differ - expected: '%s', found: '%s'", n, englishEnding(n).c_str(),
                          compress(j).c_str(), compress(p).c_str());
    }
    if (ans.seekEof() && ouf.seekEof()) quitf(_ok, "%d tokens", n);
    if (ans.seekEof()) quitf(_wa, "Participant output contains extra tokens");
    quitf(_wa, "Unexpected EOF in the participants output");
}
"""

# 5 command lines: one duplicate, one the validator rejects (n > 1000) -> 3 tests.
GENERATOR_CMD = """\
# small
./gen -n 1 -max 10
./gen -n 5 -max 100
./gen -n 5 -max 100   # the same line again: a duplicate input
gen -n 50 -max 1000000
./gen -n 2000 -max 10 # rejected by the validator
"""
COMMANDS = 5
VALID_TESTS = 3

CPP_SOLUTION = r"""
#include <bits/stdc++.h>
int main() {
    int n; std::cin >> n;
    long long s = 0;
    for (int i = 0; i < n; i++) { long long a; std::cin >> a; s += a; }
    printf("%lld %.9f\n", s, (double)s / n);
}
"""

PY_SOLUTION = """\
n = int(input())
a = list(map(int, input().split()))
print(sum(a), sum(a) / n)
"""

JAVA_SOLUTION = """\
import java.util.*;

public class Solution {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        int n = in.nextInt();
        long s = 0;
        for (int i = 0; i < n; i++) s += in.nextLong();
        System.out.println(s + " " + ((double) s / n));
    }
}
"""

SOLUTIONS: dict[Language, str] = {"cpp": CPP_SOLUTION, "py3": PY_SOLUTION, "java": JAVA_SOLUTION}


def record(language: Language = "cpp", **overrides: Any) -> LintEvalRecord:
    """A LintEval record of this problem whose original is the reference solution."""
    fields: dict[str, Any] = {
        "sample_id": f"9999_Z_{language}_0",
        "problem_id": "9999_Z",
        "language": language,
        "code": SOLUTIONS[language],
        "generator": GENERATOR,
        "generator_cmd": GENERATOR_CMD,
        "checker": TOLERANCE_CHECKER,
        "validator": VALIDATOR,
    }
    fields.update(overrides)
    return LintEvalRecord.model_validate(fields)
