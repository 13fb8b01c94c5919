"""Real judge fixtures: the discovered toolchain, a bwrap sandbox, one cache per session."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from linteval_ray.config import TestLimits
from linteval_ray.schema.record import Language
from linteval_ray.toolchain import Toolchain, ToolchainError
from linteval_ray.validate.cache import ContentCache
from linteval_ray.validate.judge import JudgeContext, PreparedProblem, prepare_problem
from linteval_ray.validate.sandbox import Sandbox, SandboxError, make_sandbox
from tests.validate.judge import problems

# Small limits keep the hostile cases fast: a time limit of 1 s, 1 MiB of output.
LIMITS = TestLimits(time_floor_s=1.0, time_factor=3.0, memory_mb=256, output_mb=1, reference_time_limit_s=10.0)


@pytest.fixture(scope="session")
def judge_toolchain() -> Toolchain:
    try:
        toolchain = Toolchain.discover()
    except ToolchainError as exc:
        pytest.skip(f"toolchain not installed ({exc}); run: linteval-ray toolchain install")
    if not (Path(toolchain.testlib_dir) / "testlib.h").is_file():
        pytest.skip("testlib.h not installed; run: linteval-ray toolchain install")
    return toolchain


@pytest.fixture(scope="session")
def judge_sandbox(judge_toolchain: Toolchain) -> Iterator[Sandbox]:
    try:
        sandbox = make_sandbox("bwrap", toolchain=judge_toolchain)
    except SandboxError as exc:
        pytest.skip(f"bwrap sandbox unusable here: {exc}")
    yield sandbox
    sandbox.close()


@pytest.fixture(scope="session")
def judge_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Shared by the session so each testlib tool compiles once (~5 s each)."""
    return tmp_path_factory.mktemp("judge-cache")


@pytest.fixture
def make_ctx(
    judge_toolchain: Toolchain, judge_sandbox: Sandbox, judge_cache_dir: Path, tmp_path: Path
) -> Callable[..., JudgeContext]:
    def make(cache_dir: Path | None = None, jobs: int = 2, limits: TestLimits = LIMITS) -> JudgeContext:
        cache = ContentCache(None, cache_dir or judge_cache_dir)
        scratch = tmp_path / "scratch"
        return JudgeContext(
            sandbox=judge_sandbox, toolchain=judge_toolchain, cache=cache, scratch=scratch, limits=limits, jobs=jobs
        )

    return make


@pytest.fixture
def ctx(make_ctx: Callable[..., JudgeContext]) -> JudgeContext:
    return make_ctx()


@pytest.fixture
def prepared(ctx: JudgeContext) -> Callable[[Language], PreparedProblem]:
    """The sum/mean problem prepared with a reference solution in ``language`` (cached)."""
    return lambda language: prepare_problem(problems.record(language), ctx)
