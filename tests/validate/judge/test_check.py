"""Checking outputs in batches: the verdicts and messages of one box per check, from one box."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from linteval_ray.schema.result import Verdict
from linteval_ray.validate.judge import JudgeContext, PreparedProblem, prepare_problem
from linteval_ray.validate.judge.check import batches, check_output, check_outputs
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
EXPECTED = {
    "right": (Verdict.PASSED, "ok sum"), "wrong": (Verdict.WRONG_ANSWER, "wrong answer sum: expected"),
    "wa": (Verdict.WRONG_ANSWER, "wrong answer told so"), "pe": (Verdict.WRONG_ANSWER, "wrong output format told so"),
    "fail": (Verdict.INFRA_ERROR, "checker FAIL"), "crash": (Verdict.INFRA_ERROR, "checker crashed"),
    "spin": (Verdict.INFRA_ERROR, "checker crashed"), "sleep": (Verdict.INFRA_ERROR, "checker crashed"),
    "exit7": (Verdict.INFRA_ERROR, "checker exited 7"), "long": (Verdict.WRONG_ANSWER, "lll<end>"),
    "noisy": (Verdict.INFRA_ERROR, "checker crashed"), "chatty": (Verdict.INFRA_ERROR, "checker crashed"),
    "linger": (Verdict.PASSED, "ok left a child behind"), "killparent": (Verdict.PASSED, "ok killed its parent"),
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
    for word, (verdict, message) in zip(words, batched, strict=True):
        assert verdict == EXPECTED[word][0], (word, message)
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
    assert [verdict for verdict, _ in checked] == [EXPECTED[word][0] for word in words]


def test_outputs_are_batched_within_the_budget_in_order() -> None:
    outputs = [("a", b"x" * 6), ("b", b"x" * 5), ("c", b"x" * 20), ("d", b""), ("e", b"x")]
    assert [[name for name, _ in batch] for batch in batches(outputs, 10)] == [["a"], ["b"], ["c"], ["d", "e"]]
    assert [[name for name, _ in batch] for batch in batches(outputs, 100)] == [["a", "b", "c", "d", "e"]]
    assert list(batches([], 10)) == []
