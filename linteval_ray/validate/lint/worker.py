"""A long-lived linter process that answers one JSON line per request line.

Shared by the warm pylint and PMD workers: the child announces itself with a first
line, then answers each request; the parent reads with a deadline and kills the
whole process group when an answer is late or the child died. The child is bounded
like a one-shot tool: RLIMIT_AS for its life, and a CPU budget per request (its soft
RLIMIT_CPU moved past what it has used before each request, so one file can never
spend more than that). It is retired after ``max_requests`` requests or once its
resident size passes ``max_rss_mb`` (what a hostile input made it keep).
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import time
from pathlib import Path
from typing import Any

from linteval_ray.validate.lint.base import LintError, cpu_killed, grant_cpu, limit_address_space
from linteval_ray.validate.sandbox.process import kill_group

STARTUP_TIMEOUT_S = 120.0  # a JVM on a busy node can take tens of seconds
# The environment of a linter process: nothing of the worker's (no AWS_*, tokens); PYTHONPATH is
# kept so that the worker module imports from the same tree as its parent.
ENV_PASSED = ("PATH", "LANG", "PYTHONPATH", "JAVA_HOME")
BASE_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
            # glibc reserves 64 MB of address space per thread arena: under RLIMIT_AS a JVM
            # would fail for its thread count rather than its memory use
            "MALLOC_ARENA_MAX": "2"}


def linter_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    passed = {name: os.environ[name] for name in ENV_PASSED if name in os.environ}
    return {**BASE_ENV, **passed, **(extra or {})}


class LineWorker:
    """The child process and a deadline-aware reader of its reply lines."""

    def __init__(self, argv: list[str], *, tool: str, memory_mb: int | None = None, cwd: Path | None = None,
                 env: dict[str, str] | None = None, startup_timeout_s: float = STARTUP_TIMEOUT_S) -> None:
        self.tool = tool
        self.requests = 0
        self.proc = subprocess.Popen(
            argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            start_new_session=True, bufsize=0, env=linter_env(env),
        )
        limit_address_space(self.proc.pid, memory_mb)
        stdin, stdout = self.proc.stdin, self.proc.stdout
        assert stdin is not None and stdout is not None, "both are pipes (PIPE above)"
        self._stdin, self._stdout = stdin, stdout
        self._buffer = b""
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._stdout, selectors.EVENT_READ)
        try:
            self.hello = self.read(startup_timeout_s)
        except (TimeoutError, EOFError) as exc:
            self.kill()
            raise LintError(tool, f"worker did not start: {exc or 'timed out'}") from None

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def rss_mb(self) -> float:
        """Resident size now (0 once it has exited)."""
        try:
            with open(f"/proc/{self.proc.pid}/statm", "rb") as statm:
                pages = int(statm.read().split()[1])
        except (FileNotFoundError, ProcessLookupError, IndexError):
            return 0.0
        return pages * os.sysconf("SC_PAGE_SIZE") / (1 << 20)

    def worn_out(self, max_requests: int, max_rss_mb: float) -> bool:
        """Time for a fresh process: dead, old, or holding more memory than a worker should."""
        return not self.alive or self.requests >= max_requests or self.rss_mb() > max_rss_mb

    def send(self, line: str, cpu_s: float | None = None) -> None:
        """One request line, with ``cpu_s`` CPU seconds to answer it; ``BrokenPipeError`` if the worker is gone."""
        self.requests += 1
        if cpu_s is not None:
            grant_cpu(self.proc.pid, cpu_s)
        self._stdin.write(line.encode() + b"\n")

    def read(self, timeout_s: float) -> dict[str, Any]:
        """The next reply; ``TimeoutError`` after ``timeout_s``, ``EOFError`` if the worker died
        (its message says so when it died of its CPU budget)."""
        deadline = time.monotonic() + timeout_s
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self._selector.select(remaining):
                raise TimeoutError
            chunk = os.read(self._stdout.fileno(), 1 << 16)
            if not chunk:
                raise EOFError(self.death())
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        reply: dict[str, Any] = json.loads(line)  # the worker's JSON reply object
        return reply

    def death(self) -> str:
        """Why the (exited) worker died, in a few words."""
        kill_group(self.proc.pid)
        code = self.proc.wait()
        if cpu_killed(code):
            return f"{self.tool} worker exceeded its CPU budget"
        if code < 0:
            return f"{self.tool} worker killed by signal {-code}"
        return f"{self.tool} worker exited with {code}"

    def kill(self) -> None:
        self._selector.close()
        kill_group(self.proc.pid)
        self.proc.wait()
