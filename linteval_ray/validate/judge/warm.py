"""What the runners that judge many tests in one box (``java_runner``, ``native_runner``) keep."""

from __future__ import annotations

from pydantic import BaseModel, Field

from linteval_ray.validate.sandbox.base import RunResult


class WarmTest(BaseModel):
    """A test that ended normally in a runner: its output and what it cost."""

    name: str
    stdout: bytes
    cpu_s: float
    wall_s: float


class WarmRun(BaseModel):
    """What a runner judged: the tests it kept, in order, and the run of the next one when that
    ran out of CPU time (``native_runner``), for the judge to score as a time limit or not; or
    whether the next one ran to its wall-clock cap there (a time limit the box-per-test path runs
    twice to count: the runner's run is the first of the two)."""

    kept: list[WarmTest] = Field(default_factory=list)
    out_of_time: RunResult | None = None
    next_ran_to_wall_cap: bool = False


def within_budgets(done: list[WarmTest], limits: list[float], cpu_share: float) -> list[WarmTest]:
    """The tests up to the first whose measured time is past its budget (``cpu_share`` of its CPU
    limit, its limit in wall time). A runner stops there itself; this holds even were it stalled."""
    for index, (test, limit) in enumerate(zip(done, limits, strict=False)):
        if test.cpu_s > cpu_share * limit or test.wall_s > limit:
            return done[:index]
    return done
