"""A long-lived linter process that answers one JSON line per request line.

Shared by the warm pylint and PMD workers: the child announces itself with a first
line, then answers each request; the parent reads with a deadline and kills the
whole process group when an answer is late or the child died.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import time
from pathlib import Path
from typing import Any

from linteval_ray.validate.lint.base import LintError, limit_address_space
from linteval_ray.validate.sandbox.process import kill_group

STARTUP_TIMEOUT_S = 120.0  # a JVM on a busy node can take tens of seconds


class LineWorker:
    """The child process and a deadline-aware reader of its reply lines."""

    def __init__(self, argv: list[str], *, tool: str, memory_mb: int | None = None, cwd: Path | None = None,
                 startup_timeout_s: float = STARTUP_TIMEOUT_S) -> None:
        self.tool = tool
        self.requests = 0
        self.proc = subprocess.Popen(
            argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            start_new_session=True, bufsize=0,
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

    def send(self, line: str) -> None:
        """One request line; ``BrokenPipeError`` if the worker is gone."""
        self.requests += 1
        self._stdin.write(line.encode() + b"\n")

    def read(self, timeout_s: float) -> dict[str, Any]:
        """The next reply; ``TimeoutError`` after ``timeout_s``, ``EOFError`` if the worker died."""
        deadline = time.monotonic() + timeout_s
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self._selector.select(remaining):
                raise TimeoutError
            chunk = os.read(self._stdout.fileno(), 1 << 16)
            if not chunk:
                raise EOFError(f"{self.tool} worker exited with {self.proc.wait()}")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        reply: dict[str, Any] = json.loads(line)  # the worker's JSON reply object
        return reply

    def kill(self) -> None:
        self._selector.close()
        kill_group(self.proc.pid)
        self.proc.wait()
