"""The one interface every sandbox backend implements.

Every untrusted program (revisions, originals, generators, validators,
checkers, and the compilers and linters that read untrusted source) runs
through ``Sandbox.run``. Inside the box ``BOX_DIR`` is the current directory: the
run's work directory (read-write) when the caller needs what the run leaves there,
else a tmpfs of the run's own; nothing else of the host is writable, and only what a
backend binds read-only (system toolchains and the ``mounts`` a caller passes) is visible.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, TypeVar

from pydantic import BaseModel, Field

from linteval_ray.errors import LintEvalError

if TYPE_CHECKING:
    from linteval_ray.toolchain import Toolchain

BOX_DIR = "/box"


class Mount(BaseModel):
    """A host path made visible inside the box (read-only unless ``writable``)."""

    src: Path
    dst: str
    writable: bool = False


class RunLimits(BaseModel):
    """Bounds on one run. ``None`` means the backend's default."""

    wall_s: float = Field(description="wall-clock limit; the whole process group is killed")
    cpu_s: float | None = Field(default=None, description="RLIMIT_CPU (defaults to wall_s + 1)")
    memory_mb: int | None = Field(default=1024, description="RLIMIT_AS; None: none (resident_mb bounds the run)")
    resident_mb: int | None = Field(
        default=None, description="memory the run's processes may use together, bounded and counted by a memory "
        "cgroup where the sandbox has them (Sandbox.counts_memory); None: not counted")
    output_bytes: int = Field(default=64 << 20, description="cap on captured stdout (and stderr)")
    file_size_mb: int = Field(default=64, description="RLIMIT_FSIZE")
    tmp_mb: int = Field(default=64, description="size of each of the box's tmpfs's: /tmp, /dev/shm, and /box "
                        "without a work dir (their pages are memory the run uses)")
    nproc: int = Field(default=64, description="RLIMIT_NPROC for the sandbox uid")
    nofile: int = Field(default=256, description="RLIMIT_NOFILE")
    stack_mb: int | None = Field(default=None, description="RLIMIT_STACK; None: the system's default")


class RunResult(BaseModel):
    """What happened to one run."""

    exit_code: int | None = Field(description="exit status, or None when killed by a signal")
    signal: int | None = None
    stdout: bytes = b""
    stderr: bytes = b""
    wall_s: float = 0.0
    cpu_s: float = 0.0
    timed_out: bool = False  # wall or CPU limit
    output_exceeded: bool = False
    peak_rss_mb: float | None = Field(
        default=None, description="peak resident MB of the run's largest process, None when it cannot be told "
        "(the run was killed)")
    memory_peak_mb: float | None = Field(
        default=None, description="peak of the memory the run's processes used together (its memory cgroup); "
        "None when not counted")
    oom_killed: bool = Field(default=False, description="the kernel's OOM killer ended a process of the run at "
                             "its memory cgroup's limit")

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not (self.timed_out or self.output_exceeded)


@dataclass(frozen=True)
class SandboxSetup:
    """What a sandbox may be opened with; each kind takes what it uses."""

    allow_unsafe: bool = False  # the user's consent to a sandbox that does not isolate
    ro_binds: list[Path] = field(default_factory=list)  # host paths visible read-only at the same path
    toolchain: Toolchain | None = None  # its tools (bwrap itself among them)


class Sandbox(ABC):
    """Runs one command in isolation and reports how it ended."""

    name: ClassVar[str]

    @property
    def counts_memory(self) -> bool:
        """Whether ``RunLimits.resident_mb`` bounds and counts a run (a memory cgroup per run)."""
        return False

    @abstractmethod
    def run(
        self,
        argv: list[str],
        *,
        workdir: Path | None,
        limits: RunLimits,
        stdin: bytes | Path | None = None,
        mounts: list[Mount] | None = None,
        env: dict[str, str] | None = None,
    ) -> RunResult:
        """Run ``argv`` in a box of its own, with ``workdir`` (or, for None, a tmpfs of its own) at
        ``BOX_DIR`` (cwd); never raises for the program's own failures, only for the sandbox's
        (``SandboxError``)."""

    @classmethod
    @abstractmethod
    def open(cls, setup: SandboxSetup) -> Sandbox:
        """A ready sandbox of this kind; ``SandboxError`` naming the fix when it cannot work here."""

    def reference(self) -> Sandbox:
        """This sandbox with its boxes built the reference way (what the audit holds a faster builder
        against); itself where there is only one way."""
        return self

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release held resources (e.g. the claimed sandbox uid)."""


class SandboxError(RuntimeError):
    """The sandbox itself could not run (not the program inside it): during a run, that row's
    ``infra_error``."""


class SandboxUnavailable(LintEvalError, SandboxError):
    """The sandbox cannot work here as configured (bwrap missing or refused by the kernel, no prlimit,
    'rlimits' not allowed, an unknown kind): found when it is opened, before any program runs, and
    said in one line with the fix."""


S = TypeVar("S", bound=type[Sandbox])
_SANDBOXES: dict[str, type[Sandbox]] = {}


def register_sandbox(cls: S) -> S:
    """Class decorator: the sandbox kind ``cls.name`` (``validation.sandbox``) is ``cls``."""
    _SANDBOXES[cls.name] = cls
    return cls


def sandbox_kinds() -> list[str]:
    return sorted(_SANDBOXES)


def sandbox_class(kind: str) -> type[Sandbox]:
    if kind not in _SANDBOXES:
        raise SandboxUnavailable(f"unknown sandbox kind {kind!r} (known: {', '.join(sandbox_kinds())})")
    return _SANDBOXES[kind]
