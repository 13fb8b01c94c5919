"""How long and how big a revision may run on one test.

Time limit = max(``time_floor_s``, ``time_factor`` x the original's CPU time on that input), on
the run's own CPU time (user + system of its processes, from rusage), so a busy host slows a
program without failing it; a wall-clock cap of ``WALL_CAP_FACTOR`` x the limit +
``WALL_CAP_EXTRA_S`` stops sleepers. Memory and output limits from ``TestLimits``. The same for a
test in a box of its own (``run.run_one_test``) and in a revision's one box (``native_runner``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from linteval_ray.validate.sandbox.base import RunLimits

if TYPE_CHECKING:
    from linteval_ray.validate.judge.compile import CompiledProgram
    from linteval_ray.validate.judge.context import JudgeContext
    from linteval_ray.validate.judge.problem import ReferenceTest

# The wall clock only stops programs that do not use their CPU (sleep, block on input): a
# CPU-bound program still fits with three other busy processes per core.
WALL_CAP_FACTOR = 4.0
WALL_CAP_EXTRA_S = 5.0


def time_limit_s(test: ReferenceTest, ctx: JudgeContext) -> float:
    """The CPU-time limit of a revision on ``test``."""
    return max(ctx.limits.time_floor_s, ctx.limits.time_factor * test.cpu_s)


def wall_cap_s(limit_s: float) -> float:
    return WALL_CAP_FACTOR * limit_s + WALL_CAP_EXTRA_S


def test_run_limits(program: CompiledProgram, limit_s: float, ctx: JudgeContext) -> RunLimits:
    """The limits of ``program``'s run on a test whose time limit is ``limit_s``."""
    return RunLimits(
        wall_s=wall_cap_s(limit_s),
        cpu_s=limit_s,
        memory_mb=program.address_space_mb(ctx.limits.memory_mb),
        output_bytes=ctx.limits.output_mb << 20,
        file_size_mb=ctx.limits.output_mb,
    )
