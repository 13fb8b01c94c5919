"""Verdicts do not depend on the host's load: with two busy loops per core running (started
and stopped by pid here), every bundled reference revision still gets the verdict its
expect.yaml names (the gold check), and hostile programs keep theirs.

Time limits are on the program's own CPU time (max(floor, factor x the original's CPU
time)); the wall clock is only a generous cap for programs that sleep.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from linteval_ray.config import TestLimits
from linteval_ray.schema import Verdict
from linteval_ray.toolchain import Toolchain
from linteval_ray.validate.cache import ContentCache, default_cache_dir
from linteval_ray.validate.judge import JudgeContext, judge_revision, prepare_problem
from linteval_ray.validate.sandbox import SandboxError, make_sandbox
from tests.data.test_bundled import EXPECT, RECORDS

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]

BUSY_PER_CORE = 2


@pytest.fixture(scope="module")
def busy_host() -> Iterator[list[int]]:
    """Two pure-CPU processes per core for as long as the module runs; stopped by their pids."""
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
             for _ in range(BUSY_PER_CORE * (os.cpu_count() or 1))]
    try:
        yield [p.pid for p in loops]
    finally:
        for proc in loops:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def ctx(toolchain: Toolchain, tmp_path_factory: pytest.TempPathFactory, session_cache_dir: str,
        busy_host: list[int]) -> Iterator[JudgeContext]:
    try:
        sandbox = make_sandbox("bwrap", toolchain=toolchain)
    except SandboxError as exc:
        pytest.skip(f"bwrap sandbox unusable here: {exc}")
    yield JudgeContext(sandbox=sandbox, toolchain=toolchain, cache=ContentCache(None, default_cache_dir() / "cache"),
                       scratch=tmp_path_factory.mktemp("load-scratch"), limits=TestLimits(), jobs=2)
    sandbox.close()


def _still_loaded(pids: list[int]) -> None:
    for pid in pids:
        os.kill(pid, 0)  # raises if a busy loop died: the test would no longer prove anything


@pytest.mark.parametrize("sample_id", sorted(s for s in RECORDS if RECORDS[s].extraction_ok))
def test_gold_verdicts_hold_on_an_oversubscribed_host(sample_id: str, ctx: JudgeContext,
                                                       busy_host: list[int]) -> None:
    record, expect = RECORDS[sample_id], EXPECT[sample_id]
    problem = prepare_problem(record, ctx)
    result = judge_revision(record.language, record.revised_code or "", problem, ctx)
    _still_loaded(busy_host)
    assert result.verdict.value == expect.verdict, f"{sample_id} ({expect.note}): {result.detail}"


HOSTILE = {
    "spin": ("py3", "while True:\n    pass\n", Verdict.TIME_LIMIT),
    "sleep": ("py3", "import time\ntime.sleep(3600)\n", Verdict.TIME_LIMIT),
    # Each child stays under RLIMIT_CPU's per-process limit for a while; their sum counts.
    "spin_in_children": ("py3", "import os\nfor _ in range(2):\n    if os.fork() == 0:\n        while True:\n"
                                "            pass\nos.wait()\nos.wait()\n", Verdict.TIME_LIMIT),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_verdicts_hold_on_an_oversubscribed_host(name: str, ctx: JudgeContext,
                                                          busy_host: list[int]) -> None:
    language, code, verdict = HOSTILE[name]
    record = next(r for r in RECORDS.values() if r.problem_id == "lr01" and r.language == language)
    result = judge_revision(language, code, prepare_problem(record, ctx), ctx)
    _still_loaded(busy_host)
    assert result.verdict == verdict, result.detail
    first = result.tests[0]
    # A sleeper meets the wall-clock cap having used almost no CPU; a spinner its CPU limit.
    # (Children still spinning when the wall cap hits were never waited for: their CPU is not
    # in the rusage, so only the verdict is checked for them.)
    if name == "sleep":
        assert first.cpu_s < 0.5 * first.time_limit_s and first.wall_s >= first.time_limit_s, first
    elif name == "spin":
        assert first.cpu_s >= 0.8 * first.time_limit_s, first
