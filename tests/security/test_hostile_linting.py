"""Revisions that attack the linters, through ``Validator`` as a worker runs them: each is a
correct program (it passes the bundled problem's tests) built to break its linter. The linter
is bounded (CPU budget, stack, address space), the failure is the row's ``lint_error``, the row
is still judged (its verdict stands, its alert metrics are left out), and the linter serves the
next revision of the same worker normally.

The lint CPU budget is cut to 8 s (the default is 30 s; an original with bits/stdc++.h needs
~1.5 CPU-s idle, more on a loaded host) so that the budget, not the 120 s wall clock, ends the
C++ case, on a loaded machine as on an idle one.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from linteval_ray.config import PoolConfig, TestLimits, ValidationConfig
from linteval_ray.languages.java.pmd import Pmd
from linteval_ray.schema import LintEvalRecord, ResultRow, Status, Verdict
from linteval_ray.validate.engine import Validator

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]

LINT_CPU_S = 8.0
LIMITS = TestLimits(time_floor_s=3.0, time_factor=3.0, memory_mb=256, output_mb=1, reference_time_limit_s=10.0,
                    lint_cpu_s=LINT_CPU_S)

# astroid infers a left-nested sum recursively: 900 terms exceed Python's recursion limit in
# pylint, while CPython compiles and runs the (never called) function without trouble.
PY_DEEP_SUM = "def _never_called():\n    return " + " + ".join(["1"] * 900) + "\n\n\n"
# clang evaluates each call of a constexpr function again (g++ memoizes them): 40 static_asserts
# on fib(25..27) would cost clang-tidy ~40 CPU-s, and cost g++ a fraction of a second.
CPP_CONSTEXPR_BOMB = "".join([
    "constexpr long fib_(int n) { return n < 2 ? n : fib_(n - 1) + fib_(n - 2); }\n",
    *(f'static_assert(fib_({25 + i % 3}) > {i}, "fib");\n' for i in range(40)),
])
# 3000 nested parentheses overflow PMD's 8 MB stack. javac (1 MB stack) overflows on every nesting
# that does (parentheses, else-if, +, call chains, generic calls were tried): no correct Java program
# overflows PMD here, so this one is judged a compile_error (javac's verdict, not the linter's).
JAVA_DEEP_PARENS = "    static int deep() { return " + "(" * 3000 + "1" + ")" * 3000 + "; }\n"


def _with_java_member(code: str, member: str) -> str:
    head, brace, rest = code.partition("public class Main {")
    assert brace, "the bundled Java sample declares `public class Main {`"
    return head + brace + "\n" + member + rest




@pytest.fixture(scope="module")
def validator(session_cache_dir: str) -> Iterator[Validator]:
    validator = Validator(ValidationConfig(limits=LIMITS, pool=PoolConfig(num_cpus=2)))
    yield validator
    validator.close()


def _row(record: LintEvalRecord, code: str, draw: int) -> dict[str, object]:
    return {"record_json": record.model_dump_json(), "draw": draw, "revised_code": code, "model": "hostile"}


def _judge(validator: Validator, record: LintEvalRecord, hostile: str) -> tuple[ResultRow, ResultRow]:
    """The hostile revision, then the original as the next revision, in one batch."""
    first, after = validator.evaluate_batch([_row(record, hostile, 0), _row(record, record.code, 1)])
    return first, after


def _assert_judged_with_lint_error(row: ResultRow, after: ResultRow, tool: str,
                                   verdict: Verdict = Verdict.PASSED) -> None:
    assert row.status == Status.EVALUATED, row.error
    assert (row.verdict, row.pass_at_1) == (verdict, verdict == Verdict.PASSED), row.validation_error
    if verdict == Verdict.PASSED:
        assert row.tests_passed == row.tests_generated - row.tests_dropped > 0
    assert row.lint_error is not None and row.lint_error.side == "revision"
    assert row.lint_error.reason.startswith(f"{tool}: ")
    assert row.metrics is None and row.revised_messages == []  # unknown, not "no alerts"
    assert row.original_messages, "the original was linted: only the revision's lint failed"
    # the next revision of the same worker is linted and judged as usual
    assert (after.status, after.verdict, after.lint_error) == (Status.EVALUATED, Verdict.PASSED, None)
    assert after.metrics is not None and after.metrics.original_total_messages == len(after.original_messages)


def test_python_revision_that_blows_pylints_recursion_limit_is_judged(validator: Validator, records) -> None:
    record = records["py3"]
    row, after = _judge(validator, record, PY_DEEP_SUM + record.code)
    _assert_judged_with_lint_error(row, after, "pylint")
    assert "astroid-error" in row.lint_error.reason  # type: ignore[union-attr]
    assert "/tmp/" not in row.lint_error.reason  # type: ignore[union-attr]  # no host paths in the row


def test_cpp_revision_past_clang_tidys_cpu_budget_is_bounded_and_judged(validator: Validator, records) -> None:
    record = records["cpp"]
    row, after = _judge(validator, record, CPP_CONSTEXPR_BOMB + record.code)
    _assert_judged_with_lint_error(row, after, "clang-tidy")
    assert f"CPU budget of {LINT_CPU_S:g} s exceeded" in row.lint_error.reason  # type: ignore[union-attr]


def test_java_revision_that_overflows_pmds_stack_leaves_the_server_running(validator: Validator, records) -> None:
    record = records["java"]
    pmd = validator.linters.linter("java")
    assert isinstance(pmd, Pmd)
    validator.evaluate_batch([_row(record, record.code, 0)])  # the server is up
    assert pmd._server is not None
    server_pid = pmd._server.proc.pid
    row, after = _judge(validator, record, _with_java_member(record.code, JAVA_DEEP_PARENS))
    _assert_judged_with_lint_error(row, after, "pmd", Verdict.COMPILE_ERROR)
    assert "StackOverflowError" in row.lint_error.reason  # type: ignore[union-attr]
    assert pmd._server is not None and pmd._server.alive and pmd._server.proc.pid == server_pid
