"""Checking outputs in batches: the verdicts and messages of one box per check, from one box."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from linteval_ray.schema.result import Verdict
from linteval_ray.validate.judge import JudgeContext, PreparedProblem, ProblemError, judge_revision, prepare_problem
from linteval_ray.validate.judge.check import batches, check_output, check_outputs, stderr_tail
from linteval_ray.validate.sandbox import RunResult
from tests.validate.judge import problems
from tests.validate.judge.conftest import LIMITS

# Accepts the original's answer (its sum), and does what any other first word of the output says.
OBEDIENT_CHECKER = r"""
#include "testlib.h"
#include <csignal>
#include <unistd.h>
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    std::string word = ouf.readToken();
    if (word == "wa") quitf(_wa, "told so");
    if (word == "pe") quitf(_pe, "told so");
    if (word == "fail") quitf(_fail, "jury bug");
    if (word == "crash") { volatile int* p = nullptr; *p = 1; }
    if (word == "spin") for (volatile int x = 0;; x++) {}
    if (word == "sleep") pause();
    if (word == "exit7") _exit(7);
    if (word == "long") quitf(_wa, "%s<end>", std::string(3000, 'l').c_str());
    std::string kib(1024, 'x');
    if (word == "noisy") { for (int i = 0; i < 2048; i++) fputs(kib.c_str(), stderr); quitf(_ok, "noisy"); }
    if (word == "chatty") { for (int i = 0; i < 2048; i++) fputs(kib.c_str(), stdout); quitf(_ok, "chatty"); }
    if (word == "linger") { if (fork() == 0) pause(); quitf(_ok, "left a child behind"); }
    if (word == "killparent") { kill(getppid(), SIGKILL); quitf(_ok, "killed its parent"); }
    long long sum = ans.readLong();
    if (word != std::to_string(sum)) quitf(_wa, "sum: expected %lld, found '%s'", sum, word.c_str());
    while (!ouf.seekEof()) ouf.readToken();  // the mean
    quitf(_ok, "sum %lld", sum);
}
"""
WORDS = ["wa", "pe", "fail", "crash", "spin", "sleep", "exit7", "long", "noisy", "chatty", "linger"]
WA = Verdict.WRONG_ANSWER
# word -> (verdict, words of the message, whether the checker itself failed on the output)
EXPECTED = {
    "right": (Verdict.PASSED, "ok sum", False), "wrong": (WA, "wrong answer sum: expected", False),
    "wa": (WA, "wrong answer told so", False), "pe": (WA, "wrong output format told so", False),
    "fail": (WA, "the checker said FAIL", True), "crash": (WA, "the checker crashed", True),
    "spin": (WA, "the checker ran out of time", True), "sleep": (WA, "the checker ran out of time", True),
    "exit7": (WA, "the checker exited 7", True), "long": (WA, "lll<end>", False),
    "noisy": (WA, "the checker crashed", True), "chatty": (WA, "the checker crashed", True),
    "linger": (Verdict.PASSED, "ok left a child behind", False),
    "killparent": (Verdict.PASSED, "ok killed its parent", False),
}


@pytest.fixture
def obedient(make_ctx: Callable[..., JudgeContext]) -> tuple[PreparedProblem, JudgeContext]:
    # A 2 s checker wall limit keeps the spinning and sleeping checks short.
    ctx = make_ctx(limits=LIMITS.model_copy(update={"reference_time_limit_s": 2.0}))
    return prepare_problem(problems.record("cpp", checker=OBEDIENT_CHECKER), ctx), ctx


def _outputs(problem: PreparedProblem, words: list[str]) -> list[tuple[str, bytes]]:
    """Each word as the output on a test, the tests cycled; "right"/"wrong": the (off by one) sum."""
    tests = problem.reference.tests
    outputs = []
    for index, word in enumerate(words):
        name = tests[index % len(tests)].name
        if word in ("right", "wrong"):
            total = int(problem.reference.answer_path(name).read_text().split()[0]) + (word == "wrong")
            word = str(total)
        outputs.append((name, word.encode() + b"\n"))
    return outputs



@pytest.mark.slow  # compiles one more testlib tool, and waits out two hanging checks in each path
def test_a_batch_gives_each_check_the_verdict_and_message_of_a_box_of_its_own(
    obedient: tuple[PreparedProblem, JudgeContext],
) -> None:
    problem, ctx = obedient
    words = ["right", "wrong", *WORDS, "right"]
    outputs = _outputs(problem, words)
    before = ctx.sandbox_runs
    batched = check_outputs(outputs, problem, ctx)
    assert ctx.sandbox_runs - before == 1  # the whole batch in one box
    alone = [check_output(name, output, problem, ctx) for name, output in outputs]
    assert batched == alone
    for word, (verdict, message, failed) in zip(words, batched, strict=True):
        assert (verdict, failed) == (EXPECTED[word][0], EXPECTED[word][2]), (word, message)
        assert EXPECTED[word][1] in message, (word, message)
    assert len(batched[words.index("long")][1]) == 500  # the message's tail, as one box gives it


def test_a_check_that_kills_the_driver_leaves_the_rest_to_boxes_of_their_own(
    obedient: tuple[PreparedProblem, JudgeContext],
) -> None:
    problem, ctx = obedient
    words = ["right", "killparent", "wrong", "right"]
    before = ctx.sandbox_runs
    checked = check_outputs(_outputs(problem, words), problem, ctx)
    assert ctx.sandbox_runs - before == 1 + 3  # the batch, then each unreported check alone
    assert [check.verdict for check in checked] == [EXPECTED[word][0] for word in words]


def test_an_output_that_breaks_the_checker_is_the_revisions_wrong_answer_and_stays_in_the_score(
    obedient: tuple[PreparedProblem, JudgeContext],
) -> None:
    """The checker accepts the original's answer to that test: what it failed on is the output."""
    problem, ctx = obedient
    code = problems.CPP_SOLUTION.replace('printf("%lld %.9f\\n", s, (double)s / n);', 'puts("fail");')
    result = judge_revision("cpp", code, problem, ctx)
    assert result.verdict == WA and result.first_failure is not None
    assert "the checker said FAIL" in result.first_failure.evidence
    assert "accepts the original's answer" in result.first_failure.evidence


def test_a_checker_failing_on_the_originals_own_answer_to_a_later_test_makes_the_problem_invalid(
    make_ctx: Callable[..., JudgeContext],
) -> None:
    """It accepts the first test's answer (checked when the problem is prepared), not the third's."""
    ctx = make_ctx()
    checker = OBEDIENT_CHECKER.replace("long long sum = ans.readLong();",
                                       "long long sum = ans.readLong(); if (sum > 1000) quitf(_fail, \"jury\");")
    problem = prepare_problem(problems.record("cpp", checker=checker), ctx)
    assert any(int(problem.reference.answer_path(t.name).read_text().split()[0]) > 1000
               for t in problem.reference.tests[1:]), "a later test's sum must be large"
    with pytest.raises(ProblemError, match="original's own answer"):
        judge_revision("cpp", problems.CPP_SOLUTION, problem, ctx)


def test_outputs_are_batched_within_the_budget_in_order() -> None:
    outputs = [("a", b"x" * 6), ("b", b"x" * 5), ("c", b"x" * 20), ("d", b""), ("e", b"x")]
    assert [[name for name, _ in batch] for batch in batches(outputs, 10)] == [["a"], ["b"], ["c"], ["d", "e"]]
    assert [[name for name, _ in batch] for batch in batches(outputs, 100)] == [["a", "b", "c", "d", "e"]]
    assert list(batches([], 10)) == []


def test_a_message_tail_never_starts_inside_a_path() -> None:
    """Host paths are replaced in rows after the tail is cut: half a path would escape that."""
    path = "/host/" + "deep/" * 30 + "file.txt"
    cut = stderr_tail(RunResult(exit_code=1, stderr=f"see {path} then {'x' * 330} end".encode()))
    assert cut.startswith("then x") and "/" not in cut
    long = stderr_tail(RunResult(exit_code=1, stderr=("l" * 3000 + "<end>").encode()))
    assert len(long) == 500 and long.endswith("<end>")  # no path: the plain tail
