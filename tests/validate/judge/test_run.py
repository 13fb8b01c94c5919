"""Judging revisions: every verdict class, on real programs in the bwrap sandbox."""

from __future__ import annotations

import signal
from collections.abc import Callable

import pytest

from linteval_ray.schema.record import Language
from linteval_ray.schema.result import Verdict
from linteval_ray.validate.audit import audited
from linteval_ray.validate.judge import JudgeContext, JudgeResult, PreparedProblem, judge_revision, prepare_problem
from linteval_ray.validate.judge.limits import memory_evidence
from linteval_ray.validate.judge.records import TestRecord
from linteval_ray.validate.judge.run import is_borderline_time_limit
from linteval_ray.validate.sandbox.base import RunResult
from tests.validate.judge import problems


def _judge(
    prepared: Callable[[Language], PreparedProblem], ctx: JudgeContext, language: Language, code: str
) -> JudgeResult:
    """Judge a revision against the problem prepared with the C++ original."""
    return judge_revision(language, code, prepared("cpp"), ctx)


@pytest.mark.parametrize("language", ["cpp", "py3", "java"])
def test_correct_revision_passes(
    prepared: Callable[[Language], PreparedProblem], ctx: JudgeContext, language: Language
) -> None:
    result = _judge(prepared, ctx, language, problems.SOLUTIONS[language])
    assert result.verdict == Verdict.PASSED, result.detail
    assert result.pass_at_1 and result.compile_ok and result.validation_error is None
    assert (result.tests_passed, result.tests_failed) == (problems.VALID_TESTS, 0)
    assert result.tests_generated == result.tests_passed + result.tests_failed + result.tests_dropped


def test_float_tolerance_checker_accepts_close_and_rejects_far_answers(
    prepared: Callable[[Language], PreparedProblem], ctx: JudgeContext
) -> None:
    close = "n = int(input())\na = list(map(int, input().split()))\nprint(sum(a), f'{sum(a) / n:.8f}')\n"
    far = "n = int(input())\na = list(map(int, input().split()))\nprint(sum(a), f'{sum(a) / n + 0.001:.3f}')\n"
    assert _judge(prepared, ctx, "py3", close).verdict == Verdict.PASSED
    result = _judge(prepared, ctx, "py3", far)
    assert result.verdict == Verdict.WRONG_ANSWER
    assert "mean: expected" in (result.detail or "")


def test_wrong_sum_is_wrong_answer_decided_by_the_first_failing_test(
    prepared: Callable[[Language], PreparedProblem], ctx: JudgeContext
) -> None:
    # Wrong only when n == 5 (the second test).
    code = "n = int(input())\na = list(map(int, input().split()))\nprint(sum(a) + (n == 5), sum(a) / n)\n"
    result = _judge(prepared, ctx, "py3", code)
    assert result.verdict == Verdict.WRONG_ANSWER and not result.pass_at_1
    assert (result.tests_passed, result.tests_failed) == (2, 1)
    assert result.detail is not None and result.detail.startswith("test 001:") and "sum: expected" in result.detail
    assert result.validation_error == f"wrong_answer: {result.detail}"


def test_presentation_error_is_wrong_answer(prepared: Callable[[Language], PreparedProblem], ctx: JudgeContext) -> None:
    result = _judge(prepared, ctx, "py3", "print('hello world')\n")
    assert result.verdict == Verdict.WRONG_ANSWER
    assert result.tests_failed == problems.VALID_TESTS


@pytest.mark.slow  # compiles one more testlib tool (~5 s idle, far more on a loaded host)
def test_std_wcmp_checker_compares_tokens(ctx: JudgeContext) -> None:
    problem = prepare_problem(problems.record("cpp", checker=problems.WCMP_CHECKER), ctx)
    same = judge_revision("cpp", problems.CPP_SOLUTION, problem, ctx)
    reformatted = judge_revision("py3", problems.PY_SOLUTION, problem, ctx)  # 0.5 vs 0.500000000
    assert same.verdict == Verdict.PASSED
    assert reformatted.verdict == Verdict.WRONG_ANSWER and "words differ" in (reformatted.detail or "")


def test_infinite_loop_is_time_limit_and_stops_starting_tests(
    prepared: Callable[[Language], PreparedProblem], make_ctx: Callable[..., JudgeContext]
) -> None:
    ctx = make_ctx(jobs=1)
    result = _judge(prepared, ctx, "cpp", "int main() { volatile int x = 0; for (;;) x++; }\n")
    assert result.verdict == Verdict.TIME_LIMIT
    assert result.tests_skipped == problems.VALID_TESTS - 1
    assert result.tests_failed == problems.VALID_TESTS and result.tests_passed == 0
    assert [t.verdict for t in result.tests] == [Verdict.TIME_LIMIT, None, None]


# Catches SIGXCPU (RLIMIT_CPU's soft signal at the 1 s limit), spins a little longer, answers right, exits 0.
PAST_ITS_LIMIT = r"""
#include <csignal>
#include <cstdio>
#include <ctime>
#include <unistd.h>
static void late_answer(int) {
    while (clock() < 1.3 * CLOCKS_PER_SEC) {}
    long long a, b; if (scanf("%lld %lld", &a, &b) == 2) printf("%lld\n", a + b);
    fflush(stdout); _exit(0);
}
int main() { signal(SIGXCPU, late_answer); volatile long x = 0; for (;;) x++; }
"""


def test_a_run_that_ends_by_itself_past_its_limit_is_a_time_limit(
    prepared: Callable[[Language], PreparedProblem], make_ctx: Callable[..., JudgeContext]
) -> None:
    result = _judge(prepared, make_ctx(jobs=1), "cpp", PAST_ITS_LIMIT)
    assert result.verdict == Verdict.TIME_LIMIT, result.detail
    assert result.tests[0].signal is None and result.tests[0].cpu_s > result.tests[0].time_limit_s


@pytest.mark.parametrize(
    ("signal", "cpu_s", "repeats"),
    [(None, 1.1, True), (signal.SIGSEGV, 1.2, True), (signal.SIGKILL, 0.2, True),
     (signal.SIGXCPU, 1.0, False), (signal.SIGKILL, 2.0, False)],
)
def test_only_a_time_limit_a_busy_host_can_cause_is_run_again(signal: int | None, cpu_s: float, repeats: bool) -> None:
    """Ended by itself just past the limit, or stopped by the wall clock: repeat. Killed for its CPU: counts."""
    record = TestRecord(name="000", verdict=Verdict.TIME_LIMIT, time_limit_s=1.0, cpu_s=cpu_s, signal=signal)
    assert is_borderline_time_limit(record) is repeats
    assert not is_borderline_time_limit(record.model_copy(update={"verdict": Verdict.RUNTIME_ERROR}))


@pytest.mark.parametrize(
    ("language", "code"),
    [
        ("cpp", "#include <vector>\n#include <cstdio>\n"
                "int main() { std::vector<long long> v(1LL << 31, 1); printf(\"%lld\", v[7]); }\n"),
        ("py3", "a = [0] * (10 ** 8)\n"),
        ("java", "public class Main { public static void main(String[] a) { java.util.List<long[]> h = "
                 "new java.util.ArrayList<>(); for (;;) h.add(new long[1 << 20]); } }\n"),
    ],
)
def test_memory_hog_is_memory_limit(
    prepared: Callable[[Language], PreparedProblem], ctx: JudgeContext, language: Language, code: str
) -> None:
    result = _judge(prepared, ctx, language, code)
    assert result.verdict == Verdict.MEMORY_LIMIT, result.detail


@pytest.mark.parametrize(
    ("language", "code"),
    [
        ("cpp", "int main() { volatile int* p = nullptr; *p = 1; }\n"),  # segfault
        ("cpp", "#include <stdexcept>\nint main() { throw std::runtime_error(\"boom\"); }\n"),
        ("cpp", "int main() { return 3; }\n"),
        ("py3", "raise ValueError('boom')\n"),
        ("java", "public class Main { public static void main(String[] a) { throw new IllegalStateException(); } }\n"),
        # Refused before any of it is used (80 GB; 8 GB past the heap): nothing the kernel counted says memory.
        ("py3", "a = [0] * (10 ** 10)\n"),
        ("java", "public class Main { public static void main(String[] a) "
                 "{ long[] x = new long[1 << 30]; x[5] = 1; System.out.println(x[5]); } }\n"),
    ],
)
def test_crash_is_runtime_error(
    prepared: Callable[[Language], PreparedProblem], ctx: JudgeContext, language: Language, code: str
) -> None:
    result = _judge(prepared, ctx, language, code)
    assert result.verdict == Verdict.RUNTIME_ERROR, result.detail


def test_output_flood_is_output_limit(prepared: Callable[[Language], PreparedProblem], ctx: JudgeContext) -> None:
    code = '#include <cstdio>\nint main() { for (;;) fputs("0123456789abcdef\\n", stdout); }\n'
    result = _judge(prepared, ctx, "cpp", code)
    assert result.verdict == Verdict.OUTPUT_LIMIT


def test_deep_recursion_gets_a_stack_as_large_as_the_memory_limit(
    prepared: Callable[[Language], PreparedProblem], ctx: JudgeContext
) -> None:
    # ~100 MB of stack: crashes under the default 8 MiB stack.
    code = (
        "#include <bits/stdc++.h>\n"
        "int depth(int n) { volatile char pad[100]; pad[0] = n; return n ? depth(n - 1) + pad[0] * 0 + 1 : 0; }\n"
        "int main() { int n; std::cin >> n; long long s = 0, a; "
        "for (int i = 0; i < n; i++) { std::cin >> a; s += a; }\n"
        "  if (depth(1000000) != 1000000) return 1; printf(\"%lld %.9f\\n\", s, (double)s / n); }\n"
    )
    result = _judge(prepared, ctx, "cpp", code)
    assert result.verdict == Verdict.PASSED, result.detail


@pytest.mark.parametrize(
    ("language", "code"),
    [
        ("cpp", "int main() { return undefined; }\n"),
        ("java", "public class Main { public static void main(String[] a) { int x = } }\n"),
        ("py3", "print('unterminated)\n"),
    ],
)
def test_compile_error(
    prepared: Callable[[Language], PreparedProblem], ctx: JudgeContext, language: Language, code: str
) -> None:
    result = _judge(prepared, ctx, language, code)
    assert result.verdict == Verdict.COMPILE_ERROR
    assert not result.compile_ok and not result.pass_at_1
    assert result.detail and result.tests_passed == 0 and result.tests_failed == problems.VALID_TESTS


def test_java_without_a_public_class_runs_the_class_with_main(
    prepared: Callable[[Language], PreparedProblem], ctx: JudgeContext
) -> None:
    code = problems.JAVA_SOLUTION.replace("public class Solution", "class Helper {}\nclass Runner")
    result = _judge(prepared, ctx, "java", code)
    assert result.verdict == Verdict.PASSED, result.detail


def test_memory_limit_is_decided_by_the_kernels_counts_not_by_the_programs_words() -> None:
    says = b"terminate called after throwing an instance of 'std::bad_alloc'\n"
    heap = b'Exception in thread "main" java.lang.OutOfMemoryError: Java heap space\n'
    killed = RunResult(exit_code=None, signal=signal.SIGKILL, oom_killed=True, memory_peak_mb=256)
    assert "OOM killer" in (memory_evidence(killed, 256, "cpp") or "")
    # With a memory cgroup, a native program's failure is its memory only when the kernel ended it.
    assert memory_evidence(RunResult(exit_code=1, stderr=says, memory_peak_mb=250), 256, "cpp") is None
    # Without one (address-space limits), a failure with its largest process near the limit.
    assert memory_evidence(RunResult(exit_code=None, signal=6, stderr=says, peak_rss_mb=230), 256, "cpp")
    assert memory_evidence(RunResult(exit_code=None, signal=6, stderr=says, peak_rss_mb=3), 256, "cpp") is None
    # The JVM's heap is its own: its report counts with the kernel's count of the memory at the limit.
    assert memory_evidence(RunResult(exit_code=1, stderr=heap, memory_peak_mb=270), 256, "java")
    assert memory_evidence(RunResult(exit_code=1, stderr=heap, memory_peak_mb=30), 256, "java") is None
    deep = RunResult(exit_code=1, stderr=b"java.lang.StackOverflowError", memory_peak_mb=330)  # a 64 MiB stack
    assert memory_evidence(deep, 256, "java") is None
    assert memory_evidence(RunResult(exit_code=0, stdout=b"7", memory_peak_mb=300), 256, "java") is None


def test_an_audited_revision_is_judged_by_both_builders_and_the_reference_judgement_is_recorded(
    prepared: Callable[[Language], PreparedProblem], ctx: JudgeContext
) -> None:
    problem = prepared("cpp")
    agrees = judge_revision("cpp", problems.CPP_SOLUTION, problem, ctx, audit=True)
    assert agrees.audit is not None and agrees.audit.agreed and agrees.verdict == Verdict.PASSED
    # Wrong only in the box server's boxes (it mounts /proc/sys read-only, bubblewrap does not): a builder
    # that judged differently from the reference is the audit's to find.
    code = problems.CPP_SOLUTION.replace("int main() {", "#include <fstream>\n#include <sstream>\nint main() {\n"
                                         "    std::ifstream m(\"/proc/self/mountinfo\"); std::stringstream t; "
                                         "t << m.rdbuf();\n"
                                         "    if (t.str().find(\" /proc/sys \") != std::string::npos) "
                                         "{ puts(\"0 0\"); return 0; }")
    fast = judge_revision("cpp", code, problem, ctx)
    both = judge_revision("cpp", code, problem, ctx, audit=True)
    assert fast.verdict == Verdict.WRONG_ANSWER
    assert both.audit is not None and not both.audit.agreed
    assert "wrong_answer" in both.audit.fast
    assert both.verdict == Verdict.PASSED  # the reference builder's judgement


def test_the_audit_samples_the_same_share_of_rows_everywhere() -> None:
    rows = [f"sample_{i}#0" for i in range(20000)]
    picked = [row for row in rows if audited(row, 0.01)]
    assert 140 < len(picked) < 260  # 1 % of 20,000, by a hash of the row id
    assert picked == [row for row in rows if audited(row, 0.01)]
    assert all(audited(row, 1.0) for row in rows[:100]) and not any(audited(row, 0.0) for row in rows)
