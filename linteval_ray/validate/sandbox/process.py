"""Run one already-wrapped command line under limits and classify how it ended.

Both backends end here: they only differ in the argv they build (``prlimit`` +
``bwrap`` + the box init, or ``prlimit`` alone). Rlimits are applied by the
``prlimit`` binary rather than a ``preexec_fn`` because ``preexec_fn`` can
deadlock in multi-threaded processes such as Ray actors.
"""

from __future__ import annotations

import contextlib
import fcntl
import math
import os
import resource
import selectors
import signal
import subprocess
import time
from pathlib import Path

from linteval_ray.validate.sandbox.base import RunLimits, RunResult, SandboxError
from linteval_ray.validate.sandbox.cgroup import RunCgroup
from linteval_ray.validate.sandbox.reaper import parse_report, reaper_binary

PRLIMIT = "/usr/bin/prlimit"  # util-linux: sets rlimits, then execs the command

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
_DRAIN_AFTER_EXIT_S = 1.0


def stack_limit_prefix(memory_mb: int) -> list[str]:
    """``prlimit --stack`` in front of a program: deep recursion is common and Codeforces
    lets the stack grow to the memory limit (a natively run language's run command starts so)."""
    return [PRLIMIT, f"--stack={memory_mb << 20}", "--"]


def build_env(extra: dict[str, str] | None) -> dict[str, str]:
    """The minimal environment plus what the caller passes explicitly."""
    return {**BASE_ENV, **(extra or {})}


def cpu_limit_s(limits: RunLimits) -> int:
    """RLIMIT_CPU soft limit in whole seconds (the kernel's granularity)."""
    cpu = limits.cpu_s if limits.cpu_s is not None else limits.wall_s + 1
    return max(1, math.ceil(cpu))


def killed_for_cpu(sig: int | None, cpu_s: float, limits: RunLimits) -> bool:
    """Whether RLIMIT_CPU ended the run: SIGXCPU at the soft limit, SIGKILL at the hard one."""
    return sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu_s >= cpu_limit_s(limits))


def prlimit_argv(limits: RunLimits) -> list[str]:
    """``prlimit`` in front of the command: rlimits set before the first exec."""
    cpu = cpu_limit_s(limits)
    return [
        PRLIMIT,
        f"--cpu={cpu}:{cpu + 1}",  # SIGXCPU at soft, SIGKILL at hard
        f"--as={'unlimited' if limits.memory_mb is None else limits.memory_mb << 20}",
        f"--fsize={limits.file_size_mb << 20}",
        f"--nofile={limits.nofile}",
        f"--nproc={limits.nproc}",
        "--core=0",
        "--",
    ]


def run_limited(
    argv: list[str],
    *,
    cwd: Path | str,
    limits: RunLimits,
    env: dict[str, str],
    stdin: bytes | Path | None,
    exit_code_signals: bool,
    pass_fds: tuple[int, ...] = (),
    cgroup: RunCgroup | None = None,
) -> RunResult:
    """Spawn ``argv`` in a new session, enforce wall time and output caps, kill the
    whole process group at the end, and classify the outcome.

    ``exit_code_signals``: the wrapper reports a signal death as exit 128+N (bwrap).
    ``pass_fds`` are inherited by the child and closed here once it is spawned.
    The reaper (see ``reaper``) starts the command, in ``cgroup`` when given, and reports its
    peak memory.
    """
    reaper = reaper_binary()
    stdin_fd = -1
    report_r, report_w = os.pipe()
    pass_fds = (*pass_fds, report_w)
    try:
        try:
            stdin_fd = _open_stdin(stdin)
            started = time.monotonic()
            proc = subprocess.Popen(
                [reaper, str(report_w), str(cgroup.procs) if cgroup else "-", *argv],
                cwd=cwd,
                env=env,
                stdin=stdin_fd,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                close_fds=True,
                pass_fds=pass_fds,
            )
        except OSError as exc:
            os.close(report_r)
            raise SandboxError(f"cannot start the run ({argv[0]}): {exc}") from exc
    finally:
        for fd in (stdin_fd, *pass_fds):
            if fd >= 0:
                os.close(fd)
    try:
        outcome = _supervise(proc, limits, started)
        outcome.peak_rss_mb = parse_report(read_available(report_r))
    finally:
        os.close(report_r)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    return _classify(outcome, limits, exit_code_signals)


class _Outcome:
    """Raw facts gathered while a run was supervised."""

    def __init__(self) -> None:
        self.stdout = bytearray()
        self.stderr = bytearray()
        self.timed_out = False
        self.output_exceeded = False
        self.status = 0
        self.rusage: resource.struct_rusage | None = None
        self.peak_rss_mb: float | None = None  # the reaper's report: None when it was killed
        self.wall_s = 0.0


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


def _supervise(proc: subprocess.Popen[bytes], limits: RunLimits, started: float) -> _Outcome:
    """Read stdout/stderr with a byte cap until the process exits or the wall limit hits."""
    out = _Outcome()
    deadline = started + limits.wall_s
    pidfd = os.pidfd_open(proc.pid)
    sel = selectors.DefaultSelector()
    try:
        assert proc.stdout is not None and proc.stderr is not None
        for stream, buf in ((proc.stdout, out.stdout), (proc.stderr, out.stderr)):
            os.set_blocking(stream.fileno(), False)
            sel.register(stream.fileno(), selectors.EVENT_READ, buf)
        sel.register(pidfd, selectors.EVENT_READ, None)
        exited = False
        while not exited:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                out.timed_out = True
                break
            for key, _ in sel.select(remaining):
                if key.data is None:
                    exited = True
                    sel.unregister(pidfd)
                elif not _read_into(sel, key, limits.output_bytes):
                    out.output_exceeded = True
            if out.output_exceeded:
                break
        # Stop everything still alive (the program, or a daemon it left behind).
        kill_group(proc.pid)
        if exited:
            _drain(sel, limits.output_bytes, out)
    finally:
        # Also on errors: never leave the group running. Before wait4, so the
        # group id cannot have been reused yet.
        kill_group(proc.pid)
        sel.close()
        os.close(pidfd)
    _, out.status, out.rusage = os.wait4(proc.pid, 0)
    out.wall_s = time.monotonic() - started
    proc.returncode = os.waitstatus_to_exitcode(out.status)  # reaped here, not by Popen
    return out


def _read_into(sel: selectors.BaseSelector, key: selectors.SelectorKey, cap: int) -> bool:
    """Read one chunk into the key's buffer; False when the cap is exceeded."""
    buf: bytearray = key.data
    try:
        chunk = os.read(key.fd, _READ_CHUNK)
    except BlockingIOError:
        return True
    if not chunk:
        sel.unregister(key.fd)
        return True
    room = cap - len(buf)
    buf += chunk[: max(room, 0)]
    return len(chunk) <= room


def _drain(sel: selectors.BaseSelector, cap: int, out: _Outcome) -> None:
    """Collect what the exited program left in its pipes (bounded in time)."""
    until = time.monotonic() + _DRAIN_AFTER_EXIT_S
    while sel.get_map() and (remaining := until - time.monotonic()) > 0:
        for key, _ in sel.select(remaining):
            if key.data is not None and not _read_into(sel, key, cap):
                out.output_exceeded = True
                return


def kill_group(pgid: int) -> None:
    """SIGKILL every process of group ``pgid`` (a child started with ``start_new_session``);
    a group already gone, or whose processes now run as another uid, is left alone. The caller
    reaps the leader afterwards, so the group id cannot have been reused meanwhile."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _classify(out: _Outcome, limits: RunLimits, exit_code_signals: bool) -> RunResult:
    exit_code: int | None = None
    sig: int | None = None
    if os.WIFSIGNALED(out.status):
        sig = os.WTERMSIG(out.status)
    else:
        exit_code = os.WEXITSTATUS(out.status)
        if exit_code_signals and 128 < exit_code <= 128 + 64:
            sig = exit_code - 128
            exit_code = None
    usage = out.rusage
    cpu_s = (usage.ru_utime + usage.ru_stime) if usage else 0.0
    if out.timed_out or out.output_exceeded:
        # We killed it: its status says SIGKILL, not what the program did.
        exit_code, sig = None, signal.SIGKILL
    cpu_killed = killed_for_cpu(sig, cpu_s, limits)
    return RunResult(
        exit_code=exit_code,
        signal=sig,
        stdout=bytes(out.stdout),
        stderr=bytes(out.stderr),
        wall_s=out.wall_s,
        cpu_s=cpu_s,
        timed_out=out.timed_out or cpu_killed,
        output_exceeded=out.output_exceeded,
        peak_rss_mb=out.peak_rss_mb,
    )


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
