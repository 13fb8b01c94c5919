"""Problem preparation: testlib tools, generated tests, reference answers, problem errors, caching."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from linteval_ray.validate.judge import JudgeContext, ProblemError, ProblemErrorKind, prepare_problem
from linteval_ray.validate.judge.problem import generator_args
from tests.validate.judge import problems


def _expected_answer(input_text: str) -> tuple[int, float]:
    lines = input_text.split("\n")
    n, values = int(lines[0]), [int(v) for v in lines[1].split()]
    assert len(values) == n
    return sum(values), sum(values) / n


def test_generator_args_keep_the_command_exactly() -> None:
    assert generator_args("./gen -n 5 -type 'a b'") == ["-n", "5", "-type", "a b"]
    assert generator_args("gen -n 5 -tag a#b # comment") == ["-n", "5", "-tag", "a#b"]
    assert generator_args("-n 5") == ["-n", "5"]
    with pytest.raises(ValueError, match="redirection '>'"):
        generator_args("./gen -n 5 > out.txt")


def test_a_line_using_shell_syntax_is_a_named_generator_failure_the_others_make_tests(ctx: JudgeContext) -> None:
    # Passed through, '>' 'out.txt' would be two more arguments testlib ignores: a 7th, valid test.
    generator_cmd = problems.GENERATOR_CMD + "./gen -n 7 -max 10 > out.txt\n"
    problem = prepare_problem(problems.record("py3", generator_cmd=generator_cmd), ctx)
    tests = problem.tests
    assert tests.commands == problems.COMMANDS + 1
    assert len(tests.names) == problems.VALID_TESTS
    assert (tests.generator_failed, tests.rejected, tests.duplicates) == (1, 1, 1)
    assert [failure.describe() for failure in tests.generator_failures] == [
        "line 7 './gen -n 7 -max 10 > out.txt': generator command uses a shell redirection '>': not supported"
    ]
    assert problem.tests_dropped == 3


def test_a_generator_that_crashes_is_named_with_its_exit(ctx: JudgeContext) -> None:
    problem = prepare_problem(problems.record("py3", generator_cmd=problems.GENERATOR_CMD + "./gen -n 3\n"), ctx)
    (failure,) = problem.tests.generator_failures
    assert (failure.number, failure.line) == (7, "./gen -n 3")
    assert failure.error.startswith("generator failed: exit 3") and "max" in failure.error


def test_only_refused_lines_is_no_valid_tests_naming_the_first(ctx: JudgeContext) -> None:
    commands = "# none run\n./gen -n 5 -max 9 | head\n./gen -s 'a\n"
    with pytest.raises(ProblemError) as info:
        prepare_problem(problems.record("py3", generator_cmd=commands), ctx)
    assert info.value.kind == ProblemErrorKind.NO_VALID_TESTS
    assert info.value.detail == (
        "2 commands: 2 generator failures, 0 rejected by the validator; first generator failure: "
        "line 2 './gen -n 5 -max 9 | head': generator command uses a shell pipe '|': not supported"
    )


@pytest.mark.parametrize("language", ["cpp", "py3", "java"])
def test_tests_are_validated_deduplicated_and_answered_by_the_original(ctx: JudgeContext, language: str) -> None:
    problem = prepare_problem(problems.record(language), ctx)  # type: ignore[arg-type]
    tests = problem.tests
    assert tests.commands == problems.COMMANDS
    assert (tests.rejected, tests.duplicates, tests.generator_failed) == (1, 1, 0)
    assert len(tests.names) == problems.VALID_TESTS
    assert problem.tests_dropped == 2
    inputs = [tests.input_path(name).read_text() for name in tests.names]
    assert len(set(inputs)) == len(inputs)
    assert [int(text.split()[0]) for text in inputs] == [1, 5, 50]  # command order kept
    for name, text in zip(tests.names, inputs, strict=True):
        answer = problem.reference.answer_path(name).read_text().split()
        expected_sum, expected_mean = _expected_answer(text)
        assert int(answer[0]) == expected_sum
        assert float(answer[1]) == pytest.approx(expected_mean, abs=1e-6)
    assert all(t.wall_s > 0 for t in problem.reference.tests)


def test_second_evaluation_compiles_nothing_and_runs_no_program(make_ctx: Callable[..., JudgeContext]) -> None:
    prepare_problem(problems.record("py3"), make_ctx())  # warm (maybe already warm from other tests)
    ctx = make_ctx()  # a new worker on the same node: fresh counters, same local cache
    problem = prepare_problem(problems.record("py3"), ctx)
    assert ctx.sandbox_runs == 0
    assert ctx.cache.stats.misses == 0 and ctx.cache.stats.puts == 0
    assert ctx.cache.stats.hits >= 3  # checker, tests, reference answers
    assert len(problem.reference.tests) == problems.VALID_TESTS


@pytest.mark.slow  # compiles one more testlib tool (~5 s idle, far more on a loaded host)
def test_validator_rejecting_every_input_is_no_valid_tests(ctx: JudgeContext) -> None:
    with pytest.raises(ProblemError) as info:
        prepare_problem(problems.record(validator=problems.REJECT_ALL_VALIDATOR), ctx)
    assert info.value.kind == ProblemErrorKind.NO_VALID_TESTS
    assert "5 rejected by the validator" in str(info.value)


@pytest.mark.parametrize(
    ("field", "kind"),
    [
        ("generator", ProblemErrorKind.GENERATOR_COMPILE_ERROR),
        ("validator", ProblemErrorKind.VALIDATOR_COMPILE_ERROR),
        ("checker", ProblemErrorKind.CHECKER_COMPILE_ERROR),
    ],
)
def test_a_tool_that_does_not_compile_is_a_problem_error(ctx: JudgeContext, field: str, kind: ProblemErrorKind) -> None:
    broken = '#include "testlib.h"\nint main(int argc, char* argv[]) { this is not C++; }\n'
    with pytest.raises(ProblemError) as info:
        prepare_problem(problems.record(**{field: broken}), ctx)
    assert info.value.kind == kind
    assert "error" in info.value.detail


def test_original_that_does_not_compile_is_a_problem_error(ctx: JudgeContext) -> None:
    with pytest.raises(ProblemError) as info:
        prepare_problem(problems.record("cpp", code="int main() { return x; }\n"), ctx)
    assert info.value.kind == ProblemErrorKind.ORIGINAL_COMPILE_ERROR
    assert "was not declared" in info.value.detail


def test_original_failing_every_test_is_a_problem_error(ctx: JudgeContext) -> None:
    with pytest.raises(ProblemError) as info:
        prepare_problem(problems.record("py3", code="raise SystemExit(7)\n"), ctx)
    assert info.value.kind == ProblemErrorKind.ORIGINAL_FAILS_ALL
    assert "exit 7" in info.value.detail


def test_tests_the_original_fails_on_are_dropped(ctx: JudgeContext) -> None:
    # Crashes when n == 5: the 5-element test is dropped, the others keep their answers.
    code = "n = int(input())\na = list(map(int, input().split()))\nassert n != 5\nprint(sum(a), sum(a) / n)\n"
    problem = prepare_problem(problems.record("py3", code=code), ctx)
    assert problem.reference.failed == 1
    assert [t.name for t in problem.reference.tests] == ["000", "002"]
    assert problem.tests_dropped == 3
