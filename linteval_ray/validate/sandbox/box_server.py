"""The box server's client: a fresh box per run for the cost of a fork (``box_server.c``).

A sandbox running as root starts one server, hands it the layout every box shares (``layout.py``),
and then asks it for each run: the server clones a child into new pid, mount, network, IPC, UTS and
cgroup namespaces, which builds the box's root from the layout and the run's own operations and
execs the box's init. Every run gets a world of its own by construction; what bubblewrap spends on
its own exec, its setup and the execs in front of it, the server does not.

Requests come from any thread (a worker runs tests, checkers and linters at once): each is one
message on the control socket with a reply socket of its own, on which the server answers the box's
pid and a pidfd of it (the handle to kill the whole box), then, once reaped, its wait status.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import signal
import socket
import subprocess
import threading
from pathlib import Path

from linteval_ray.validate.sandbox.base import SandboxError
from linteval_ray.validate.sandbox.layout import Op
from linteval_ray.validate.sandbox.native import compiled

log = logging.getLogger(__name__)

SOURCE = Path(__file__).with_name("box_server.c")
START_TIMEOUT_S = 30.0
REPLY_BYTES = 4096


def box_server_binary() -> str:
    return compiled(SOURCE)


class BoxServer:
    """One server process; ``start`` a run in a fresh box."""

    def __init__(self, parent: Path, layout: list[Op], env: dict[str, str]) -> None:
        """``parent``: where the server makes (and at its end removes) the empty folder boxes build on."""
        self._parent, self._layout, self._env = parent, layout, env
        self._lock = threading.Lock()
        self._control: socket.socket | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._spawn()

    def _spawn(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            proc = subprocess.Popen([box_server_binary(), str(theirs.fileno())], pass_fds=(theirs.fileno(),),
                                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, env=self._env,
                                    start_new_session=True)
        except OSError as exc:
            ours.close()
            raise SandboxError(f"cannot start the box server: {exc}") from exc
        finally:
            theirs.close()
        ours.sendall(_message(["config", str(self._parent), *_ops_fields(self._layout)]))
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], START_TIMEOUT_S)
        line = proc.stdout.readline() if ready else b""
        if line != b"ready\n":
            proc.kill()
            proc.wait()
            ours.close()
            raise SandboxError(f"the box server did not start (it said {line!r}, exit {proc.poll()})")
        self._control, self._proc = ours, proc

    def start(self, ops: list[Op], argv: list[str], env: dict[str, str], cwd: str, fds: list[int]) -> ServerRun:
        """Start a run in a fresh box: ``fds`` become its descriptors 0, 1, 2, 3, ... (stdin, stdout,
        stderr, then the init's)."""
        fields = ["run", *_ops_fields(ops), str(len(argv)), *argv,
                  str(len(env)), *(f"{k}={v}" for k, v in env.items()), cwd]
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self._send(_message(fields), [theirs.fileno(), *fds])
        finally:
            theirs.close()
        failure = None  # the box's own "failed ..." may come before the server's "pid ..."
        try:
            while True:
                text, pidfds, _, _ = socket.recv_fds(ours, REPLY_BYTES, 1)
                if text.startswith(b"pid ") and pidfds:
                    run = ServerRun(pidfds[0], ours)
                    run.setup_failure = failure
                    return run
                for fd in pidfds:
                    os.close(fd)
                if not text.startswith(b"failed") or failure is not None:
                    raise SandboxError(f"the box server could not start a box: "
                                       f"{text.decode(errors='replace') or failure or 'it is gone'}")
                failure = text.decode(errors="replace").removeprefix("failed").strip()
        except BaseException:
            ours.close()
            raise

    def _send(self, message: bytes, fds: list[int]) -> None:
        with self._lock:
            control = self._control
            if control is None:
                raise SandboxError("the box server is closed")
            try:
                socket.send_fds(control, [message], fds)
                return
            except OSError as exc:
                log.warning("the box server is gone (%s): starting a new one", exc)
                self._stop()
                self._spawn()
                control = self._control
            assert control is not None
            socket.send_fds(control, [message], fds)

    def close(self) -> None:
        with self._lock:
            self._stop()

    def _stop(self) -> None:
        """Closing the control socket ends the server, and with it every box it started."""
        if self._control is not None:
            self._control.close()
            self._control = None
        if self._proc is not None:
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            if self._proc.stdout is not None:
                self._proc.stdout.close()
            self._proc = None


class ServerRun:
    """A box the server started: the ``Started`` of ``process.supervise``."""

    def __init__(self, pidfd: int, reply: socket.socket) -> None:
        self.pidfd, self._reply = pidfd, reply
        self.setup_failure: str | None = None  # the server's "failed ..." when the box was never built

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)

    def finish(self) -> tuple[int, float]:
        """The box's wait status and CPU time, from the server once it reaped the box."""
        try:
            while True:
                text = self._reply.recv(REPLY_BYTES)
                if not text:
                    raise SandboxError("the box server ended before it reported a box")
                words = text.decode(errors="replace").split()
                if words[0] == "failed":  # the box could not be built (its init then reports nothing)
                    self.setup_failure = text.decode(errors="replace").removeprefix("failed").strip()
                elif words[0] == "exit" and len(words) == 5:
                    status, utime_us, stime_us = int(words[1]), int(words[2]), int(words[3])
                    return status, (utime_us + stime_us) / 1e6
        finally:
            self._reply.close()
            os.close(self.pidfd)


def _ops_fields(ops: list[Op]) -> list[str]:
    return [str(len(ops)), *(field for op in ops for field in op.fields())]


def _message(fields: list[str]) -> bytes:
    if any("\0" in field for field in fields):
        raise SandboxError("a NUL byte in a box's argv, environment or path")
    return b"\0".join(field.encode() for field in fields)
