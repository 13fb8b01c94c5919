"""BwrapSandbox: a box of its own for every run, as a dedicated uid with no privileges.

Every run gets a fresh world: new pid, mount, network, IPC, UTS and cgroup namespaces, a root built
from the sandbox's layout (``layout.py``: read-only system folders and tools, a fresh /proc and
/dev, tmpfs's for /tmp, /dev/shm and, unless it has a work dir, /box), memory cgroups of its own,
and the box's init (``box_init.c``) as its pid 1, which starts the run as a uid of this sandbox's own
with no capabilities, its rlimits and the seccomp filter, and ends every process of the box with it.

Two builders make the same box from the same layout:
- the box server (``box_server.py``), as root: one small process clones each box (a fork's cost);
- bubblewrap, one exec per run: without root (it builds the box in a user namespace of its own,
  where the init enters a child namespace mapping the caller's uid), and as the reference the audit
  and the tests hold the server's boxes against (``reference()``).

Runs that overlap (a worker runs tests, checkers and linters on several threads) get different uids:
RLIMIT_NPROC is counted per uid, so a shared uid would let one run's fork bomb fail a neighbour.
"""

from __future__ import annotations

import contextlib
import copy
import json
import logging
import os
import platform
import shutil
import stat
import tempfile
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from linteval_ray.validate.sandbox.base import (
    BOX_DIR,
    Mount,
    RunLimits,
    RunResult,
    Sandbox,
    SandboxError,
    SandboxSetup,
    register_sandbox,
)
from linteval_ray.validate.sandbox.box_init import InitOptions, box_init_binary
from linteval_ray.validate.sandbox.box_server import BoxServer
from linteval_ray.validate.sandbox.cgroup import MemoryCgroups, RunCgroup
from linteval_ray.validate.sandbox.layout import Op, bwrap_args, run_ops, skeleton
from linteval_ray.validate.sandbox.process import ChildProcess, Pipes, Started, Supervised, build_env, supervise
from linteval_ray.validate.sandbox.seccomp import box_filter, filter_fd
from linteval_ray.validate.sandbox.uids import UidClaim, claim_uid

log = logging.getLogger(__name__)

INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap) "
    "and enable unprivileged user namespaces if not running as root "
    "(sysctl kernel.unprivileged_userns_clone=1 / user.max_user_namespaces>0; on Ubuntu 24.04+ "
    "kernel.apparmor_restrict_unprivileged_userns=0), or opt out explicitly with "
    "validation.sandbox: rlimits and validation.allow_unsafe_sandbox: true (UNSAFE: no isolation)"
)
PROBE_LIMITS = RunLimits(wall_s=30)


@register_sandbox
class BwrapSandbox(Sandbox):
    """A fresh box per run (see the module docstring); as root the box server builds them."""

    name = "bwrap"

    def __init__(self, bwrap: str | None = None, *, extra_ro_binds: Iterable[str | Path] = (),
                 builder: Literal["server", "bwrap"] | None = None) -> None:
        """``builder``: who builds the boxes (default: the box server as root, else bubblewrap)."""
        self.bwrap = bwrap or shutil.which("bwrap") or ""
        self.privileged = os.geteuid() == 0
        extra = [Path(p) for p in extra_ro_binds]
        for path in extra:
            if not path.is_absolute():
                raise SandboxError(f"extra read-only bind {path} must be an absolute path")
            self._check_visible(path)
        self._layout = skeleton(box_init_binary(), extra)
        self._seccomp = box_filter()
        if self._seccomp is None:
            log.warning("no seccomp filter for %s: programs may create user namespaces, use the keyring, "
                        "ptrace and io_uring", platform.machine())
        # Claimed uids (the first at once, more when runs overlap) and those not in use.
        self._claims: list[UidClaim] = [claim_uid()] if self.privileged else []
        self._idle: list[int] = [c.uid for c in self._claims]
        self._uid_lock = threading.Lock()
        self._closed = False
        self._cgroup_leftovers: list[RunCgroup] = []
        self._cgroups, why = MemoryCgroups.find()
        if self._cgroups is None:
            log.info("no memory cgroup per run (%s): programs' memory is bounded by their address space", why)
        self._server: BoxServer | None = None
        self._bwrap_per_run = not self.privileged or builder == "bwrap"
        if builder == "server" and not self.privileged:
            raise SandboxError("the box server needs root: without it bubblewrap builds the boxes")
        try:
            if not self._bwrap_per_run:
                self._server = BoxServer(Path(tempfile.gettempdir()), self._layout, build_env(None))
            if not (self.bwrap and os.access(self.bwrap, os.X_OK)):
                if self._bwrap_per_run:
                    raise SandboxError(f"bubblewrap (bwrap) not found: {INSTALL_HINT}")
                log.warning("bubblewrap (bwrap) not found: the box server builds every box, and the audit has no "
                            "reference builder to hold them against (apt-get install bubblewrap)")
            self._probe()
        except BaseException:
            self.close()
            raise

    @classmethod
    def open(cls, setup: SandboxSetup) -> BwrapSandbox:
        """The toolchain's bwrap (else the one on PATH), its tools and ``setup.ro_binds`` bound read-only."""
        return cls(setup.toolchain.bwrap if setup.toolchain else None, extra_ro_binds=setup.ro_binds)

    def reference(self) -> BwrapSandbox:
        """This sandbox with every box built by bubblewrap (the same uids, cgroups and layout): the
        reference the box server's boxes are held against (the audit, the tests)."""
        if self._bwrap_per_run or not (self.bwrap and os.access(self.bwrap, os.X_OK)):
            return self
        view = copy.copy(self)
        view._bwrap_per_run = True
        return view

    @property
    def builder(self) -> str:
        """Who builds this sandbox's boxes: "server" or "bwrap"."""
        return "bwrap" if self._bwrap_per_run else "server"

    @property
    def counts_memory(self) -> bool:
        return self._cgroups is not None

    @property
    def uid(self) -> int:
        """The uid a lone run gets (our own when not root)."""
        return self._claims[0].uid if self._claims else os.geteuid()

    @property
    def uids(self) -> list[int]:
        """Every uid this sandbox holds (one per run it ran at the same time; none once closed)."""
        return [c.uid for c in self._claims] if self.privileged else [os.geteuid()]

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
        if self._closed:
            raise SandboxError("sandbox is closed")
        if workdir is not None:
            workdir = Path(workdir).resolve()
            if not workdir.is_dir():
                raise SandboxError(f"workdir {workdir} is not a directory")
        ops = run_ops(workdir, mounts or [])
        for mount in mounts or []:
            self._check_visible(Path(mount.src).resolve())
        uid = self._take_uid()
        try:
            if self.privileged and workdir is not None:
                _give_to_uid(workdir, uid)
            return self._run_as(uid, argv, workdir, ops, limits, stdin, env)
        finally:
            self._give_back_uid(uid)

    def _run_as(self, uid: int, argv: list[str], workdir: Path | None, ops: list[Op], limits: RunLimits,
                stdin: bytes | Path | None, env: dict[str, str] | None) -> RunResult:
        cgroup = self._cgroups.create(limits.resident_mb) if self._cgroups and limits.resident_mb else None
        try:
            supervised, why = self._supervised(uid, argv, workdir is None, ops, limits, stdin, env, cgroup)
            return self._judged(supervised, why, cgroup)
        finally:
            if cgroup is not None:
                self._remove_cgroup(cgroup)

    def _supervised(self, uid: int, argv: list[str], box_tmpfs: bool, ops: list[Op], limits: RunLimits,
                    stdin: bytes | Path | None, env: dict[str, str] | None,
                    cgroup: RunCgroup | None) -> tuple[Supervised, str]:
        """The run, from its start to its end; and why its box was never ready, when it was not."""
        pipes = Pipes(stdin, owner=uid if self.privileged else None)
        report_r, report_w = os.pipe()
        ours: list[int] = [report_w]  # descriptors made for this run, closed once its box holds them
        try:
            seccomp = filter_fd(self._seccomp) if self._seccomp is not None else None
            cgroup_fds = [os.open(cgroup.procs, os.O_WRONLY | os.O_CLOEXEC)] if cgroup else []
            ours += [fd for fd in (seccomp, *cgroup_fds) if fd is not None]
            identity = (f"setuid:{uid}:{uid}" if self.privileged else f"userns:{os.geteuid()}:{os.getegid()}")
            run_env = {**build_env(env), "PWD": BOX_DIR}  # what bwrap's --chdir sets: the same on every builder
            started: Started
            if self._bwrap_per_run:
                options = InitOptions(report_fd=report_w, limits=limits, identity=identity, seccomp_fd=seccomp,
                                      cgroup_fds=cgroup_fds, box_tmpfs=box_tmpfs)
                started = self._start_bwrap(ops, options.argv(argv), run_env, pipes, tuple(ours))
            else:
                assert self._server is not None
                # In the box the descriptors are 0, 1, 2 (stdio), then these, in this order.
                numbers = iter(range(3, 3 + len(ours)))
                options = InitOptions(report_fd=next(numbers), limits=limits, identity=identity,
                                      seccomp_fd=next(numbers) if seccomp is not None else None,
                                      cgroup_fds=[next(numbers) for _ in cgroup_fds], box_tmpfs=box_tmpfs)
                started = self._server.start(ops, options.argv(argv), run_env, BOX_DIR, [*pipes.child_ends, *ours])
            for fd in ours:
                os.close(fd)
            ours.clear()
            pipes.close_child_ends()
            supervised = supervise(started, pipes, report_r, limits)
            return supervised, started.setup_failure or ""
        finally:
            for fd in (*ours, report_r):
                os.close(fd)
            pipes.close()

    def _start_bwrap(self, ops: list[Op], init: list[str], env: dict[str, str], pipes: Pipes,
                     fds: tuple[int, ...]) -> ChildProcess:
        """bubblewrap, and the box's pid 1 as it reports it (``--info-fd``) to kill the box by."""
        info_r, info_w = os.pipe()
        try:
            started = ChildProcess([*self._bwrap_argv(ops, info_fd=info_w), *init], env=env, cwd="/",
                                   stdio=pipes.child_ends, pass_fds=(*fds, info_w))
            os.close(info_w)
            info_w = -1
            with os.fdopen(info_r, "rb", closefd=False) as info:  # bwrap closes it once written (or at its end)
                reported = info.read()
            with contextlib.suppress(ValueError, KeyError, TypeError):
                started.watch_box(int(json.loads(reported)["child-pid"]))
            return started
        finally:
            for fd in (info_r, info_w):
                if fd >= 0:
                    os.close(fd)

    def _judged(self, supervised: Supervised, why: str, cgroup: RunCgroup | None) -> RunResult:
        """The run's result with its memory as the kernel counted it. The run's evidence comes first: a
        run whose init said nothing is ours to blame only when the kernel did not end it for its memory."""
        result, report = supervised.result, supervised.report
        if cgroup is not None:
            counted = cgroup.counts()
            result.memory_peak_mb, result.oom_killed = counted.peak_mb, counted.oom_kills > 0
        if not report.started or (report.status is None and not supervised.killed):
            if result.oom_killed:
                return result
            what = "was not set up" if not report.started else "ended without a report"
            raise SandboxError(f"the box {what}: {report.failure or why or 'its init said nothing'}"
                               f"{self._stderr_hint(result)}")
        return result

    @staticmethod
    def _stderr_hint(result: RunResult) -> str:
        text = result.stderr.decode(errors="replace").strip()[-300:]
        return f" ({text})" if text else ""

    def _remove_cgroup(self, cgroup: RunCgroup) -> None:
        """Remove a run's cgroup, and those earlier runs left (a cgroup may be busy for a moment after its
        processes died)."""
        with self._uid_lock:  # (in place: a reference() view shares the list)
            pending = [*self._cgroup_leftovers, cgroup]
            self._cgroup_leftovers.clear()
        left = [c for c in pending if not c.remove()]
        with self._uid_lock:
            self._cgroup_leftovers.extend(left)

    def close(self) -> None:
        with self._uid_lock:
            self._closed = True
            for claim in self._claims:
                claim.release()
            self._claims.clear()
            self._idle.clear()
        if self._server is not None:
            self._server.close()
            self._server = None

    def _take_uid(self) -> int:
        """An idle claimed uid, or a newly claimed one when every claimed uid is busy."""
        if not self.privileged:
            return os.geteuid()
        with self._uid_lock:
            if self._closed:
                raise SandboxError("sandbox is closed")
            if self._idle:
                return self._idle.pop()
            claim = claim_uid()
            self._claims.append(claim)
            return claim.uid

    def _give_back_uid(self, uid: int) -> None:
        if self.privileged:
            with self._uid_lock:
                if not self._closed:
                    self._idle.append(uid)

    def _bwrap_argv(self, run: list[Op], *, info_fd: int) -> list[str]:
        """bubblewrap's command line for one box, up to the box's init."""
        # The capabilities the init needs, all dropped before the program starts: SYS_ADMIN mounts the
        # box's tmpfs's; as root SETUID/SETGID drop to the sandbox uid and SETPCAP empties the bounding set;
        # in a user namespace SYS_RESOURCE caps its child namespaces at one and SETFCAP lets the init map
        # the caller's uid in that child. Being the namespace's root (uid 0) keeps bwrap from making that
        # child itself (its --disable-userns), which would leave the init no capability over the box's
        # mounts. Never CAP_SYS_RESOURCE as root: bubblewrap 0.8 then keeps every capability but it.
        if self.privileged:
            namespaces = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
            caps = ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
        else:
            namespaces = ["--unshare-all", "--unshare-user", "--uid", "0", "--gid", "0"]
            caps = ["--cap-add", "CAP_SYS_RESOURCE", "--cap-add", "CAP_SETFCAP"]
        caps = ["--cap-drop", "ALL", "--cap-add", "CAP_SYS_ADMIN", *caps]
        return [self.bwrap, "--info-fd", str(info_fd), *namespaces, "--as-pid-1", "--die-with-parent", "--new-session",
                *caps,
                "--hostname", "box", "--tmpfs", "/", *bwrap_args([*self._layout, *run]), "--chdir", BOX_DIR, "--"]

    def _check_visible(self, path: Path) -> None:
        """A bound path must be readable by the sandbox uid ("others"), or programs
        fail later with a puzzling EACCES (e.g. a 0700 ``mkdtemp`` folder)."""
        try:
            mode = path.stat().st_mode
        except OSError as exc:
            raise SandboxError(f"cannot bind {path}: {exc}") from exc
        needed = 0o005 if stat.S_ISDIR(mode) else 0o004
        if self.privileged and mode & needed != needed:
            raise SandboxError(
                f"{path} is not readable by the sandbox uid: chmod o+rX it (mode {oct(mode & 0o777)})")

    def _probe(self) -> None:
        """Fail now, with a useful message, if boxes cannot be built here."""
        try:
            result = self.run(["/usr/bin/true"], workdir=None, limits=PROBE_LIMITS)
        except SandboxError as exc:
            raise SandboxError(f"{'the box server' if self._server else 'bwrap'} does not work here ({exc}): "
                               f"{INSTALL_HINT}") from exc
        if result.exit_code != 0:
            raise SandboxError(f"a box cannot run /usr/bin/true here (exit {result.exit_code}, signal "
                               f"{result.signal}: {result.stderr.decode(errors='replace').strip()}): {INSTALL_HINT}")


def _give_to_uid(workdir: Path, uid: int) -> None:
    """Make the workdir tree owned by the sandbox uid, never following symlinks
    (a previous run may have planted links to host files)."""
    os.chown(workdir, uid, uid, follow_symlinks=False)
    # The box's builder enters /box as capability-less root before dropping to the uid: it needs search permission.
    os.chmod(workdir, 0o711)
    for _root, dirs, files, root_fd in os.fwalk(workdir, follow_symlinks=False):
        for name in (*dirs, *files):
            os.chown(name, uid, uid, dir_fd=root_fd, follow_symlinks=False)


__all__ = ["BwrapSandbox"]
