"""The ``Linter`` interface, ``LintError``, and the bounded process runner the adapters share.

Linters read untrusted source, so every tool process runs in its own session
with a wall-clock timeout (the whole group is killed) and, where the tool
tolerates it, an address-space cap.
"""

from __future__ import annotations

import contextlib
import resource
import subprocess
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from linteval_ray.schema.record import Language, LintMessage
from linteval_ray.validate.sandbox.process import kill_group

if TYPE_CHECKING:
    from linteval_ray.toolchain import Toolchain
    from linteval_ray.validate.lint.profiles import LintProfile
    from linteval_ray.validate.sandbox.base import Sandbox


class LintError(RuntimeError):
    """The linter failed on an input (crash, timeout, unparsable output); the engine makes it an
    infra_error row. A C++ compile error is NOT a LintError: it comes back as messages."""

    def __init__(self, tool: str, reason: str) -> None:
        super().__init__(f"{tool}: {reason}")
        self.tool = tool
        self.reason = reason


LintOutcome = list[LintMessage] | LintError


@dataclass(frozen=True, slots=True)
class LinterSettings:
    """How ``Linters`` runs every linter it builds (each adapter uses what applies to it)."""

    jobs: int = 2  # files linted at once by tools that run one process per file
    timeout_s: float = 120.0
    sandbox: Sandbox | None = None  # where tools that open files the source names run


class Linter(ABC):
    """One tool for one language; instances stay warm between batches."""

    tool: str
    language: Language
    file_name: str  # the stable name reported in LintMessage.file

    @classmethod
    @abstractmethod
    def from_profile(cls, toolchain: Toolchain, profile: LintProfile, settings: LinterSettings) -> Linter:
        """The linter with this profile's config file for the tool, from this toolchain."""

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
        kill_group(proc.pid)
        proc.wait()
        raise LintError(tool, f"timed out after {timeout_s:g} s") from None
    return subprocess.CompletedProcess(argv, proc.returncode, stdout, stderr)


def tail(data: bytes, limit: int = 400) -> str:
    return data.decode("utf-8", "replace").strip()[-limit:]
