"""What a failure was (``JudgeResult.first_failure``): real revisions judged in the bwrap sandbox."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

import pytest

from linteval_ray.schema.record import Language
from linteval_ray.schema.result import EXCERPT_CAP, Verdict
from linteval_ray.validate.judge import JudgeContext, PreparedProblem, judge_revision
from linteval_ray.validate.judge.failure import safe_text
from tests.validate.judge import problems
from tests.validate.judge.conftest import LIMITS

# Wrong only when n == 5: the second judged test, made by generator_cmd line 3.
WRONG_ON_N5 = "n = int(input())\na = list(map(int, input().split()))\nprint(sum(a) + (n == 5), sum(a) / n)\n"


def test_a_wrong_answer_records_its_test_generator_line_and_all_three_texts(
    prepared: Callable[[Language], PreparedProblem], ctx: JudgeContext
) -> None:
    problem = prepared("cpp")
    result = judge_revision("py3", WRONG_ON_N5, problem, ctx)
    failure = result.first_failure
    assert result.verdict == Verdict.WRONG_ANSWER and failure is not None

    assert (failure.test_index, failure.test_name, failure.verdict) == (1, "001", "wrong_answer")
    assert (failure.generator_line, failure.generator_command) == (3, "./gen -n 5 -max 100")
    given = problem.tests.input_path("001").read_text()
    answer = problem.reference.answer_path("001").read_text()
    numbers = [int(x) for x in given.split()[1:]]
    assert failure.input_excerpt == given and given.startswith("5\n")
    assert failure.expected_excerpt == answer and answer.split()[0] == str(sum(numbers))
    assert failure.output_excerpt is not None and failure.output_excerpt.split()[0] == str(sum(numbers) + 1)
    assert not (failure.input_truncated or failure.expected_truncated or failure.output_truncated)
    assert "sum: expected" in failure.message and failure.message in (result.detail or "")
    assert (failure.ended, failure.exit_code, failure.signal) == ("exit 0", 0, None)
    assert 0 < failure.wall_s < failure.time_limit_s


def test_a_crash_records_the_signal_and_what_it_printed_first(
    prepared: Callable[[Language], PreparedProblem], ctx: JudgeContext
) -> None:
    code = ('#include <cstdio>\nint main() { puts("partial answer"); fflush(stdout);\n'
            '  volatile int* p = nullptr; *p = 1; }\n')
    failure = judge_revision("cpp", code, prepared("cpp"), ctx).first_failure
    assert failure is not None and failure.verdict == "runtime_error"
    assert failure.test_index == 0 and failure.generator_line == 2
    assert (failure.signal, failure.ended) == (11, "signal 11 (SIGSEGV)")
    assert failure.output_excerpt == "partial answer\n"


def test_hostile_output_is_escaped_and_cut_at_the_cap(
    prepared: Callable[[Language], PreparedProblem], ctx: JudgeContext
) -> None:
    # Terminal escapes, a bell, NUL, a bidi override, a byte that is not UTF-8, a backslash, then 10 KB.
    code = ("import sys\nsys.stdout.buffer.write(b'\\x1b[2J\\x1b]0;pwned\\x07\\x00\\xe2\\x80\\xae'"
            " + b'\\xff\\\\end\\r\\n' + b'x' * 10000)\n")
    failure = judge_revision("py3", code, prepared("cpp"), ctx).first_failure
    assert failure is not None and failure.output_excerpt is not None
    shown = failure.output_excerpt
    assert shown.startswith("\\x1b[2J\\x1b]0;pwned\\x07\\x00\\u202e\\xff\\\\end\\x0d\n")
    assert failure.output_truncated and len(shown) == EXCERPT_CAP
    assert not [c for c in shown if unicodedata.category(c).startswith("C") and c not in "\n\t"]


def test_memory_used_is_the_programs_peak(
    prepared: Callable[[Language], PreparedProblem], make_ctx: Callable[..., JudgeContext]
) -> None:
    ctx = make_ctx(limits=LIMITS.model_copy(update={"memory_mb": 1024, "time_floor_s": 20.0}))
    # Touches 600 MB, then fails, while the judging process is bigger still (a busy worker's is):
    # a child exec'd by it would inherit that peak, which must not be mistaken for the program's.
    code = ("#include <vector>\n#include <cstdio>\nint main() { std::vector<char> v(600 << 20, 1);\n"
            "  printf(\"%d\\n\", v[12345]); return 1; }\n")
    ballast = bytearray(b"x" * (900 << 20))
    failure = judge_revision("cpp", code, prepared("cpp"), ctx).first_failure
    del ballast
    assert failure is not None and failure.ended == "exit 1"
    assert failure.memory_mb is not None and 600 <= failure.memory_mb < 700


def test_passing_and_never_run_revisions_have_no_first_failure(
    prepared: Callable[[Language], PreparedProblem], ctx: JudgeContext
) -> None:
    assert judge_revision("py3", problems.PY_SOLUTION, prepared("cpp"), ctx).first_failure is None
    assert judge_revision("cpp", "int main() { return undefined; }\n", prepared("cpp"), ctx).first_failure is None


@pytest.mark.parametrize(("text", "shown"), [
    ("plain\ttext\n", "plain\ttext\n"),
    ("a\\x00b", "a\\\\x00b"),  # a literal backslash is doubled: an escape is never ambiguous
    ("\u200bzero width \u2066isolate\u2028", "\\u200bzero width \\u2066isolate\\u2028"),
    ("\x85next line \x7f", "\\x85next line \\x7f"),
    ("tag \U000e0041", "tag \\U000e0041"),
    ("café ✓", "café ✓"),
])
def test_safe_text_escapes_every_control_and_invisible_character(text: str, shown: str) -> None:
    assert safe_text(text) == (shown, False)


def test_a_cut_never_splits_an_escape() -> None:
    assert safe_text("ab\x00", cap=5) == ("ab", True)
    assert safe_text("ab\x00", cap=6) == ("ab\\x00", False)
