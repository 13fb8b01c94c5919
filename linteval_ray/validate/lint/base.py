"""The ``Linter`` interface, ``LintError``, and the bounded process runner the adapters share.

Linters read untrusted source, so every tool process runs in its own session
with a wall-clock timeout (the whole group is killed), a CPU-time budget per file
(RLIMIT_CPU) and an address-space cap (RLIMIT_AS).
"""

from __future__ import annotations

import contextlib
import math
import os
import resource
import signal
import subprocess
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from linteval_ray.schema.record import LintMessage
from linteval_ray.validate.sandbox.process import kill_group

if TYPE_CHECKING:
    from linteval_ray.validate.sandbox.base import Sandbox


class LintError(RuntimeError):
    """The linter failed on an input (crash, timeout, unparsable output): ``lint_each`` returns it
    in that input's place, and the engine records it as the row's ``lint_error`` (which side,
    why) and judges the row all the same, its alert metrics left out. Raised instead (a linter
    that cannot start at all), it makes the batch's rows ``infra_error``. A compile error in the
    linted code is NOT a LintError: it comes back as messages."""

    def __init__(self, tool: str, reason: str) -> None:
        super().__init__(f"{tool}: {reason}")
        self.tool = tool
        self.reason = reason


LintOutcome = list[LintMessage] | LintError


@dataclass(frozen=True, slots=True)
class LinterSettings:
    """How ``Linters`` runs every linter it builds (each adapter uses what applies to it)."""

    jobs: int = 2  # files linted at once by tools that run one process per file
    timeout_s: float = 120.0  # wall clock per file (a generous cap: load must not fail a file)
    cpu_s: float = 30.0  # CPU seconds per file (honest files need well under 2)
    memory_mb: int = 4096  # address space of a tool process (a warm worker included)
    sandbox: Sandbox | None = None  # where tools that open files the source names run


@dataclass(frozen=True, slots=True)
class LinterSetup:
    """What an adapter is built from: its language's file name, the profile's settings file
    for it, the tools' paths and how to run."""

    file_name: str  # the stable name reported in LintMessage.file (the language's source file)
    config: Path  # the lint profile's settings file for this linter
    tools: Mapping[str, str]  # tool name -> path (``Toolchain.tool_paths``)
    settings: LinterSettings = LinterSettings()


class Linter(ABC):
    """One tool; an instance lints one language's code and stays warm between batches."""

    tool: str  # ``LintMessage.tool``
    # Bump when the adapter changes what it reports (parsing, naming, filtering): with the
    # profile's settings file it makes its language's lint profile id (cached alerts depend on it).
    adapter_version: str
    file_name: str

    @classmethod
    @abstractmethod
    def create(cls, setup: LinterSetup) -> Linter:
        """The linter with the profile's settings file, the tools and settings of ``setup``."""

    @abstractmethod
    def lint_each(self, codes: list[str]) -> list[LintOutcome]:
        """Messages per input, in input order; a failure on one input does not fail the others."""

    def lint_many(self, codes: list[str]) -> list[list[LintMessage]]:
        """Messages per input; raises the first ``LintError``."""
        messages: list[list[LintMessage]] = []
        for outcome in self.lint_each(codes):
            if isinstance(outcome, LintError):
                raise outcome
            messages.append(outcome)
        return messages

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release held processes."""


def limit_address_space(pid: int, memory_mb: int | None) -> None:
    """Cap a started child's address space (prlimit from the parent: no preexec_fn in threads)."""
    if memory_mb is None:
        return
    limit = memory_mb << 20
    with contextlib.suppress(ProcessLookupError):  # already exited
        resource.prlimit(pid, resource.RLIMIT_AS, (limit, limit))
        resource.prlimit(pid, resource.RLIMIT_CORE, (0, 0))  # a crash dumps no submission-laden core


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system, all threads) a live process has used, from /proc/PID/stat."""
    with open(f"/proc/{pid}/stat", "rb") as stat:
        fields = stat.read().rsplit(b")", 1)[1].split()  # the name (field 2) may hold spaces
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def grant_cpu(pid: int, cpu_s: float, *, last: bool = False) -> None:
    """Let a process spend ``cpu_s`` more CPU seconds from now: its soft RLIMIT_CPU (SIGXCPU, which
    ends it) is set that far past what it has used. A warm worker keeps its hard limit (any user may
    move the soft one again for the next file); a ``last`` grant (a one-file process) also sets the
    hard limit a second later (SIGKILL, should SIGXCPU be caught)."""
    with contextlib.suppress(ProcessLookupError, FileNotFoundError):
        soft = math.ceil(cpu_seconds(pid) + cpu_s)
        _, hard = resource.prlimit(pid, resource.RLIMIT_CPU)
        if last:
            hard = soft + 1 if hard == resource.RLIM_INFINITY else min(soft + 1, hard)
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
        resource.prlimit(pid, resource.RLIMIT_CPU, (soft, hard))


def cpu_killed(returncode: int | None) -> bool:
    return returncode == -signal.SIGXCPU


def run_bounded(
    argv: list[str], *, cwd: Path, timeout_s: float, tool: str, memory_mb: int | None = None,
    cpu_s: float | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run a tool to completion; on timeout or CPU budget kill its process group and raise ``LintError``."""
    proc = subprocess.Popen(
        argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        start_new_session=True,
    )
    limit_address_space(proc.pid, memory_mb)
    if cpu_s is not None:
        grant_cpu(proc.pid, cpu_s, last=True)
    try:
        stdout, stderr = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        kill_group(proc.pid)
        proc.wait()
        raise LintError(tool, f"timed out after {timeout_s:g} s") from None
    if cpu_killed(proc.returncode):
        kill_group(proc.pid)
        raise LintError(tool, f"CPU budget of {cpu_s:g} s exceeded")
    return subprocess.CompletedProcess(argv, proc.returncode, stdout, stderr)


def tail(data: bytes, limit: int = 400) -> str:
    return data.decode("utf-8", "replace").strip()[-limit:]
