"""The ``Linter`` interface, ``LintError``, and the bounded process runner the adapters share.

Linters read untrusted source, so every tool process runs in its own session
with a wall-clock timeout (the whole group is killed) and, where the tool
tolerates it, an address-space cap.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
from abc import ABC, abstractmethod
from pathlib import Path

from linteval_ray.schema.record import Language, LintMessage

class LintError(RuntimeError):
    """The linter failed on an input (crash, timeout, unparsable output); the engine makes it an
    infra_error row. A C++ compile error is NOT a LintError: it comes back as messages."""

    def __init__(self, tool: str, reason: str) -> None:
        super().__init__(f"{tool}: {reason}")
        self.tool = tool
        self.reason = reason


LintOutcome = list[LintMessage] | LintError


class Linter(ABC):
    """One tool for one language; instances stay warm between batches."""

    tool: str
    language: Language
    file_name: str  # the stable name reported in LintMessage.file

    @abstractmethod
    def lint_each(self, codes: list[str]) -> list[LintOutcome]:
        """Messages per input, in input order; a failure on one input does not fail the others."""

    def lint_many(self, codes: list[str]) -> list[list[LintMessage]]:
        """Messages per input; raises the first ``LintError``."""
        outcomes = self.lint_each(codes)
        for outcome in outcomes:
            if isinstance(outcome, LintError):
                raise outcome
        return outcomes  # type: ignore[return-value]

    @abstractmethod
    def version(self) -> str:
        """The tool's version (part of the lint identity)."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release held processes."""


def limit_address_space(pid: int, memory_mb: int | None) -> None:
    """Cap a started child's address space (prlimit from the parent: no preexec_fn in threads)."""
    if memory_mb is None:
        return
    limit = memory_mb << 20
    try:
        resource.prlimit(pid, resource.RLIMIT_AS, (limit, limit))
    except ProcessLookupError:
        pass  # already exited


def kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def run_bounded(
    argv: list[str], *, cwd: Path, timeout_s: float, tool: str, memory_mb: int | None = None
) -> subprocess.CompletedProcess[bytes]:
    """Run a tool to completion; on timeout kill its process group and raise ``LintError``."""
    proc = subprocess.Popen(
        argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        start_new_session=True,
    )
    limit_address_space(proc.pid, memory_mb)
    try:
        stdout, stderr = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        raise LintError(tool, f"timed out after {timeout_s:g} s") from None
    return subprocess.CompletedProcess(argv, proc.returncode, stdout, stderr)


def tail(data: bytes, limit: int = 400) -> str:
    return data.decode("utf-8", "replace").strip()[-limit:]
