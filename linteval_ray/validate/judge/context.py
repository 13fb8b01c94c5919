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

from linteval_ray.config import TestLimits
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
    wall_cap_s: float | None = None  # a fixed wall-clock cap per test (a task's profile); None: limits.wall_cap_s
    sandbox_runs: int = 0  # how many programs this context started (tests read it)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        self.scratch.mkdir(parents=True, exist_ok=True)

    def reference(self) -> JudgeContext:
        """This context with its boxes built the reference way (``Sandbox.reference``: bubblewrap)."""
        return dataclasses.replace(self, sandbox=self.sandbox.reference())

    @property
    def has_reference(self) -> bool:
        """Whether the reference way differs from this context's own (what the audit compares)."""
        return self.sandbox.reference() is not self.sandbox

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
        """Run in a box of its own: with ``files``, in a fresh work dir holding them (gone afterwards),
        else in a tmpfs of the run's own."""
        if not files:
            return self.run_in(None, argv, limits=limits, stdin=stdin, mounts=mounts, env=env)
        with work_dir(self.scratch, "run-") as workdir:
            for name, data in files.items():
                (workdir / name).write_bytes(data)
            return self.run_in(workdir, argv, limits=limits, stdin=stdin, mounts=mounts, env=env)

    def run_in(
        self,
        workdir: Path | None,
        argv: list[str],
        *,
        limits: RunLimits,
        stdin: bytes | Path | None = None,
        mounts: list[Mount] | None = None,
        env: dict[str, str] | None = None,
    ) -> RunResult:
        """Run in the caller's ``workdir`` (what the run leaves there is the caller's to read)."""
        with self._lock:
            self.sandbox_runs += 1
        return self.sandbox.run(argv, workdir=workdir, limits=limits, stdin=stdin, mounts=mounts, env=env)

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        """``fn`` over ``items`` on ``jobs`` threads (each sandbox run is its own process)."""
        items = list(items)
        if self.jobs <= 1 or len(items) <= 1:
            return [fn(item) for item in items]
        with ThreadPoolExecutor(max_workers=self.jobs) as pool:
            return list(pool.map(fn, items))
