"""Python programs run with a fixed PYTHONHASHSEED: str set/dict order is the same on every run."""

from __future__ import annotations

import ast
from pathlib import Path

from linteval_ray.schema.result import Verdict
from linteval_ray.validate.judge import JudgeContext, compile_program, judge_revision, prepare_problem
from linteval_ray.validate.sandbox import RunLimits
from tests.validate.judge import problems

WORDS = ["apple", "banana", "cherry", "date", "elder", "fig", "grape", "honeydew", "kiwi", "lemon", "mango",
         "nectarine"]
PRINT_SET = f"print(list({set(WORDS)!r}))\n"  # the order of a set of str follows the hash seed
# The sum/mean problem, answered with a sum shifted by a checksum of a set's order: right
# only if the revision iterates the set in the order the original did.
SET_ORDER_SOLUTION = f"""\
import zlib
n = int(input())
a = list(map(int, input().split()))
order = " ".join({set(WORDS)!r})
print(sum(a) + zlib.crc32(order.encode()), sum(a) / n)
"""
RUNS = 5


def _outputs(ctx: JudgeContext, tmp_path: Path, *, with_program_env: bool) -> set[bytes]:
    outcome = compile_program("py3", PRINT_SET, ctx, tmp_path / "out", prebuilt=False)
    assert outcome.program is not None, outcome.error
    program = outcome.program
    env = program.env() if with_program_env else None
    results = [
        ctx.run(program.argv(256), limits=RunLimits(wall_s=10), mounts=[program.mount()], env=env) for _ in range(RUNS)
    ]
    assert all(result.ok for result in results), [result.stderr for result in results]
    return {result.stdout for result in results}


def test_a_python_program_printing_a_set_of_str_prints_the_same_every_run(ctx: JudgeContext, tmp_path: Path) -> None:
    outputs = _outputs(ctx, tmp_path, with_program_env=True)
    assert len(outputs) == 1
    assert sorted(ast.literal_eval(outputs.pop().decode())) == sorted(WORDS)


def test_without_the_program_env_the_same_program_prints_different_orders(ctx: JudgeContext, tmp_path: Path) -> None:
    # The control: the output above really depends on the seed (12! orders; 5 equal by chance: ~never).
    assert len(_outputs(ctx, tmp_path, with_program_env=False)) > 1


def test_a_revision_identical_to_a_set_order_dependent_original_passes_every_time(ctx: JudgeContext) -> None:
    problem = prepare_problem(problems.record("py3", code=SET_ORDER_SOLUTION), ctx)
    assert len(problem.reference.tests) == problems.VALID_TESTS
    for _ in range(3):
        result = judge_revision("py3", SET_ORDER_SOLUTION, problem, ctx)
        assert result.verdict == Verdict.PASSED, result.detail
        assert result.tests_passed == problems.VALID_TESTS
