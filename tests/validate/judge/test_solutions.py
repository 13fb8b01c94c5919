"""Judging given solutions as ``linteval-ray suite`` does (``validate/solutions.py``), in the real sandbox:
an old C++ solution compiled in the dialect it needs, a real compile error kept as C++17's, and Python 2
solutions run by Python 2.7."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from linteval_ray.schema import Verdict
from linteval_ray.schema.record import Language
from linteval_ray.toolchain import ToolchainError
from linteval_ray.validate.judge import JudgeContext, PreparedProblem
from linteval_ray.validate.solutions import judge_code

DIALECTS = ("gnu++11", "gnu++98")
OLD_CPP = r"""
#include <cstdio>
int main() {
    register int n;
    char unused[8];
    if (std::scanf("%d", &n) != 1) gets(unused);  // gets: gone from C++14's <cstdio>
    long long s = 0, a;
    for (int i = 0; i < n; i++) { std::scanf("%lld", &a); s += a; }
    std::printf("%lld %.9f\n", s, (double)s / n);
}
"""
PY2 = """\
n = int(raw_input())
a = map(int, raw_input().split())
print sum(a), float(sum(a)) / n
"""


def test_an_old_cpp_solution_is_judged_in_the_first_dialect_that_compiles_it(
        ctx: JudgeContext, prepared: Callable[[Language], PreparedProblem]) -> None:
    problem = prepared("cpp")

    judged = judge_code("cpp", OLD_CPP, problem, ctx, checks=lambda: None, dialects=DIALECTS)
    as_cpp17 = judge_code("cpp", OLD_CPP, problem, ctx, checks=lambda: None)

    assert judged.judged_as == "cpp+gnu++11" and judged.result.verdict == Verdict.PASSED
    assert as_cpp17.judged_as == "cpp" and as_cpp17.result.verdict == Verdict.COMPILE_ERROR
    assert "gets" in (as_cpp17.result.detail or "")


def test_code_no_dialect_compiles_is_a_compile_error_with_cpp17s_message(
        ctx: JudgeContext, prepared: Callable[[Language], PreparedProblem]) -> None:
    judged = judge_code("cpp", "int main() { return undeclared; }", prepared("cpp"), ctx, checks=lambda: None,
                        dialects=DIALECTS)

    assert judged.judged_as == "cpp" and judged.result.verdict == Verdict.COMPILE_ERROR
    assert "undeclared" in (judged.result.detail or "") and judged.result.tests_failed == 3


def test_python2_solutions_run_on_python2(ctx: JudgeContext, prepared: Callable[[Language], PreparedProblem]) -> None:
    try:
        ctx.toolchain.path("python2")
    except ToolchainError:
        pytest.skip("Python 2.7 is not installed: run `linteval-ray toolchain install`")
    problem = prepared("cpp")

    on_python2 = judge_code("py2", PY2, problem, ctx, checks=lambda: None)
    on_python3 = judge_code("py3", PY2, problem, ctx, checks=lambda: None)

    assert (on_python2.judged_as, on_python2.result.verdict) == ("py2", Verdict.PASSED)
    assert on_python3.result.verdict == Verdict.COMPILE_ERROR
    assert "SyntaxError" in (on_python3.result.detail or "")
