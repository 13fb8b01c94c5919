"""What every judging step needs: where to run, with which tools, caching into what."""

from __future__ import annotations

import dataclasses
import tempfile
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from linteval_ray.config import JavaTests, NativeTests, TestLimits
from linteval_ray.validate.sandbox.base import Mount, RunLimits, RunResult, Sandbox
from linteval_ray.validate.scratch import work_dir

if TYPE_CHECKING:
    from linteval_ray.languages.base import LanguageSpec
    from linteval_ray.toolchain import Toolchain
    from linteval_ray.validate.cache import ContentCache

T = TypeVar("T")
R = TypeVar("R")


@dataclass
class JudgeContext:
    """Shared by problem preparation and revision runs (one per validation worker)."""

    sandbox: Sandbox
    toolchain: Toolchain
    cache: ContentCache
    scratch: Path = field(default_factory=lambda: Path(tempfile.gettempdir()))  # per-run work dirs
    limits: TestLimits = field(default_factory=TestLimits)
    jobs: int = 1
    python: str = "/usr/bin/python3"
    java_tests: JavaTests = "one_jvm"  # see ValidationConfig.java_tests
    native_tests: NativeTests = "one_box"  # see ValidationConfig.native_tests
    wall_cap_s: float | None = None  # a fixed wall-clock cap per test (a task's profile); None: limits.wall_cap_s
    sandbox_runs: int = 0  # how many programs this context started (tests read it)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        self.scratch.mkdir(parents=True, exist_ok=True)

    def reference_paths(self) -> JudgeContext:
        """This context judging every test by the reference paths (a JVM, a box per test)."""
        return dataclasses.replace(self, java_tests="fresh_jvm", native_tests="fresh_box")

    def tool_paths(self) -> dict[str, str]:
        """Tool name -> path for compile and run commands; ``python`` is validation.python."""
        return {**self.toolchain.tool_paths(), "python": self.python}

    def interpreter_path(self, spec: LanguageSpec) -> str | None:
        """The interpreter a language run from source runs on (it keys compiles and answers); None
        for a compiled language."""
        return self.tool_paths()[spec.interpreter] if spec.interpreter else None

    def run(
        self,
        argv: list[str],
        *,
        limits: RunLimits,
        stdin: bytes | Path | None = None,
        mounts: list[Mount] | None = None,
        env: dict[str, str] | None = None,
        files: dict[str, bytes] | None = None,
    ) -> RunResult:
        """Run in a fresh work dir holding ``files``; the dir is gone afterwards."""
        with work_dir(self.scratch, "run-") as workdir:
            for name, data in (files or {}).items():
                (workdir / name).write_bytes(data)
            return self.run_in(workdir, argv, limits=limits, stdin=stdin, mounts=mounts, env=env)

    def run_in(
        self,
        workdir: Path,
        argv: list[str],
        *,
        limits: RunLimits,
        stdin: bytes | Path | None = None,
        mounts: list[Mount] | None = None,
        env: dict[str, str] | None = None,
        as_pid1: bool = False,
        fds: tuple[int, ...] = (),
    ) -> RunResult:
        """Run in the caller's ``workdir`` (what the run leaves there is the caller's to read)."""
        with self._lock:
            self.sandbox_runs += 1
        return self.sandbox.run(argv, workdir=workdir, limits=limits, stdin=stdin, mounts=mounts, env=env,
                                as_pid1=as_pid1, fds=fds)

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        """``fn`` over ``items`` on ``jobs`` threads (each sandbox run is its own process)."""
        items = list(items)
        if self.jobs <= 1 or len(items) <= 1:
            return [fn(item) for item in items]
        with ThreadPoolExecutor(max_workers=self.jobs) as pool:
            return list(pool.map(fn, items))
