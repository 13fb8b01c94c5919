"""Supervise one run, whoever started it, and say how it ended.

Every run ends in the box's init (``box_init.py``), started by one of three starters: the box server
(a clone per run), bubblewrap, or the init alone (the unsafe ``rlimits`` sandbox). Each gives
``supervise`` a ``Started``: a pidfd that becomes readable once the run's outermost process has
exited (with a pid namespace, once every process of the box is gone), a way to kill it, and its
outer wait status. Here the run's stdout and stderr are read with a byte cap until its process tree
is gone (then what its pipes still hold is taken without waiting: a write end kept alive in a
socket's queue holds nothing back), the wall clock is watched as a backstop to the init's own cap,
and the init's report says how the run ended.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from linteval_ray.validate.sandbox.base import RunLimits, RunResult, SandboxError
from linteval_ray.validate.sandbox.box_init import InitReport, cpu_limit_s

# The fixed environment of every run; nothing of the host's leaks in (no AWS_*, tokens).
# MALLOC_ARENA_MAX: glibc reserves 64 MB of address space per thread arena, so
# under RLIMIT_AS a multi-threaded program (the JVM, PMD) fails for its thread
# count rather than its memory use.
BASE_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "HOME": "/box",
    "TMPDIR": "/tmp",
    "MALLOC_ARENA_MAX": "2",
}

_READ_CHUNK = 1 << 16
# The init enforces the wall cap; ours only stops a run whose init could not (a box never built).
BACKSTOP_S = 5.0
# After we killed a run: how long its box may take to go.
TEARDOWN_S = 30.0


def build_env(extra: dict[str, str] | None) -> dict[str, str]:
    """The minimal environment plus what the caller passes explicitly."""
    return {**BASE_ENV, **(extra or {})}


def killed_for_cpu(sig: int | None, cpu_s: float, limits: RunLimits) -> bool:
    """Whether RLIMIT_CPU ended the run: SIGXCPU at the soft limit, SIGKILL at the hard one."""
    return sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu_s >= cpu_limit_s(limits))


def kill_group(pgid: int) -> None:
    """SIGKILL every process of group ``pgid`` (a child started with ``start_new_session``);
    a group already gone, or whose processes now run as another uid, is left alone. The caller
    reaps the leader afterwards, so the group id cannot have been reused meanwhile."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


class Started(Protocol):
    """A run's outermost process, as its starter hands it over."""

    pidfd: int
    setup_failure: str | None  # why its box was never built, when its starter says (else its stderr does)

    def kill(self) -> None:
        """SIGKILL the run (its whole box where it has one)."""

    def finish(self) -> tuple[int, float]:
        """Once it exited: its wait status and the CPU time it and everything it reaped used."""


class ChildProcess:
    """A run started as our own child (bubblewrap, or the init itself), in a session of its own."""

    def __init__(self, argv: list[str], *, env: dict[str, str], cwd: Path | str, stdio: tuple[int, int, int],
                 pass_fds: tuple[int, ...]) -> None:
        try:
            self._proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=stdio[0], stdout=stdio[1], stderr=stdio[2],
                                          start_new_session=True, close_fds=True, pass_fds=pass_fds)
        except OSError as exc:
            raise SandboxError(f"cannot start the run ({argv[0]}): {exc}") from exc
        self.pidfd = os.pidfd_open(self._proc.pid)
        self.setup_failure: str | None = None
        self._box_pidfd: int | None = None

    def watch_box(self, pid: int) -> None:
        """The box's pid 1 (bubblewrap's child): killing it ends the box before bubblewrap exits, so a
        killed run's processes are gone when it is reaped (killing bubblewrap alone would orphan them)."""
        with contextlib.suppress(ProcessLookupError):
            self._box_pidfd = os.pidfd_open(pid)

    def kill(self) -> None:
        if self._box_pidfd is not None:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(self._box_pidfd, signal.SIGKILL)
        else:
            kill_group(self._proc.pid)  # before it is reaped (finish)

    def finish(self) -> tuple[int, float]:
        kill_group(self._proc.pid)  # whatever of its session is left (the rlimits sandbox has no pid namespace)
        _, status, usage = os.wait4(self._proc.pid, 0)
        self._proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        for fd in (self.pidfd, self._box_pidfd):
            if fd is not None:
                os.close(fd)
        return status, usage.ru_utime + usage.ru_stime


class Pipes:
    """A run's stdin and the pipes its stdout and stderr go to (owned by ``owner``: the run may reopen
    ``/dev/stdout`` as a program may anywhere, on every path)."""

    def __init__(self, stdin: bytes | Path | None, owner: int | None) -> None:
        self._fds: list[int] = []
        try:
            self.stdin = self._keep(_open_stdin(stdin))
            self.stdout_r, self.stdout_w = (self._keep(fd) for fd in os.pipe())
            self.stderr_r, self.stderr_w = (self._keep(fd) for fd in os.pipe())
            if owner is not None:
                for fd in (self.stdout_w, self.stderr_w):
                    os.fchown(fd, owner, owner)
        except BaseException:
            self.close()
            raise

    def _keep(self, fd: int) -> int:
        self._fds.append(fd)
        return fd

    @property
    def child_ends(self) -> tuple[int, int, int]:
        return self.stdin, self.stdout_w, self.stderr_w

    def close_child_ends(self) -> None:
        """Once the run holds them: the pipes then end with the run's processes."""
        for fd in self.child_ends:
            self._close(fd)

    def close(self) -> None:
        for fd in list(self._fds):
            self._close(fd)

    def _close(self, fd: int) -> None:
        if fd in self._fds:
            self._fds.remove(fd)
            os.close(fd)


@dataclass
class Supervised:
    """A run as supervised: its result, the init's report, whether we killed it."""

    result: RunResult
    report: InitReport
    killed: bool


def supervise(started: Started, pipes: Pipes, report_r: int, limits: RunLimits) -> Supervised:
    """Read the run's output until it is gone, kill it past its output cap or the backstop, and
    say how it ended (the init's report where it wrote one)."""
    began = time.monotonic()
    stdout, stderr = bytearray(), bytearray()
    outcome = _watch(started, pipes, {pipes.stdout_r: stdout, pipes.stderr_r: stderr}, limits, began)
    status, outer_cpu_s = started.finish()
    report = InitReport.parse(read_available(report_r))
    wall_s = time.monotonic() - began
    if report.status is not None:
        status, cpu_s = report.status, report.cpu_s
    else:  # no report: we killed it (the init with it), or it never started
        status, cpu_s = signal.SIGKILL, outer_cpu_s
    exit_code = None if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    if outcome.output_exceeded or outcome.backstop:  # we killed it: its status says SIGKILL, not what it did
        exit_code, sig = None, signal.SIGKILL
    timed_out = outcome.backstop or report.wall_capped or killed_for_cpu(sig, cpu_s, limits)
    result = RunResult(exit_code=exit_code, signal=sig, stdout=bytes(stdout), stderr=bytes(stderr), wall_s=wall_s,
                       cpu_s=cpu_s, timed_out=timed_out, output_exceeded=outcome.output_exceeded,
                       peak_rss_mb=report.peak_rss_mb)
    return Supervised(result=result, report=report, killed=outcome.output_exceeded or outcome.backstop)


@dataclass
class _Outcome:
    output_exceeded: bool = False
    backstop: bool = False


def _watch(started: Started, pipes: Pipes, buffers: dict[int, bytearray], limits: RunLimits,
           began: float) -> _Outcome:
    outcome = _Outcome()
    deadline = began + limits.wall_s + BACKSTOP_S
    with selectors.DefaultSelector() as sel:
        for fd in buffers:
            os.set_blocking(fd, False)
            sel.register(fd, selectors.EVENT_READ)
        sel.register(started.pidfd, selectors.EVENT_READ)
        gone = False
        while not gone:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                outcome.backstop = True
                break
            for key, _ in sel.select(remaining):
                if key.fd == started.pidfd:
                    gone = True
                elif not _read_into(sel, key.fd, buffers[key.fd], limits.output_bytes):
                    outcome.output_exceeded = True
            if outcome.output_exceeded:
                break
        if not gone:
            started.kill()
            _wait_readable(started.pidfd, TEARDOWN_S)
        for fd, buf in buffers.items():  # its processes are gone: what is left is all there is
            if sel.get_map().get(fd) is not None and not _drain(fd, buf, limits.output_bytes):
                outcome.output_exceeded = True
    return outcome


def _read_into(sel: selectors.BaseSelector, fd: int, buf: bytearray, cap: int) -> bool:
    """Read one chunk into ``buf``; False when the cap is exceeded."""
    try:
        chunk = os.read(fd, _READ_CHUNK)
    except BlockingIOError:
        return True
    if not chunk:
        sel.unregister(fd)
        return True
    room = cap - len(buf)
    buf += chunk[: max(room, 0)]
    return len(chunk) <= room


def _drain(fd: int, buf: bytearray, cap: int) -> bool:
    """What the pipe holds now, without waiting; False when the cap is exceeded."""
    while True:
        try:
            chunk = os.read(fd, _READ_CHUNK)
        except BlockingIOError:
            return True
        if not chunk:
            return True
        room = cap - len(buf)
        buf += chunk[: max(room, 0)]
        if len(chunk) > room:
            return False


def _wait_readable(fd: int, timeout_s: float) -> None:
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        if not sel.select(timeout_s):
            raise SandboxError(f"a killed run's box was still there after {timeout_s:.0f} s")


def _open_stdin(stdin: bytes | Path | None) -> int:
    """A readable fd for the program's stdin: a sealed memfd for bytes, the file, or /dev/null."""
    if isinstance(stdin, Path):
        return os.open(stdin, os.O_RDONLY | os.O_CLOEXEC)
    if stdin is None:
        return os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
    fd = os.memfd_create("stdin", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    view = memoryview(stdin)
    while view:
        view = view[os.write(fd, view) :]
    os.lseek(fd, 0, os.SEEK_SET)
    # Sealed: the program cannot rewrite the bytes of a later reader of the same fd.
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_WRITE | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_SEAL)
    return fd


def read_available(fd: int, limit: int = 1 << 16) -> bytes:
    """What is buffered in the pipe, without waiting (a box member may hold it open)."""
    os.set_blocking(fd, False)
    chunks: list[bytes] = []
    size = 0
    while size < limit:
        try:
            chunk = os.read(fd, 4096)
        except BlockingIOError:
            break
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)
