"""BwrapSandbox: bubblewrap namespaces + rlimits + a dedicated uid.

The box's root is an empty tmpfs holding read-only binds of only what programs
need (/usr and the merged-usr links, a few /etc files for the dynamic linker and
the JVM), a fresh /proc and /dev, a private /tmp, the run's workdir at /box,
and the caller's mounts. Nothing else of the host exists inside.

As root, bwrap runs privileged WITHOUT a user namespace (a user namespace would
map the box's root to the host's root) and the box's init (``box_init``) starts the
program as a uid of this sandbox's own, with no capabilities and no_new_privs.
Runs that overlap (a worker runs tests, checkers and linters on several threads) get
different uids: RLIMIT_NPROC is counted per uid, and the sweep after a killed run kills
every process of its uid, so a shared uid would let one run's fork bomb or timeout fail
a neighbour.
Dropping the uid inside the box (rather than running bwrap itself as that uid)
lets bwrap bind host paths the sandbox uid cannot traverse, e.g. caches under
/root. When not root, bwrap runs as the caller in a user namespace, as its root, and the
init enters a child namespace that maps the caller's uid (see ``box_init.c``). In both
modes the init sizes the box's /tmp and installs the seccomp filter before the program.
"""

from __future__ import annotations

import logging
import os
import platform
import shutil
import stat
import subprocess
import threading
from collections.abc import Iterable
from pathlib import Path

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
from linteval_ray.validate.sandbox.box_init import BOX_PATH, READY, box_init_argv, box_init_binary
from linteval_ray.validate.sandbox.cgroup import MemoryCgroups, RunCgroup
from linteval_ray.validate.sandbox.process import build_env, prlimit_argv, read_available, run_limited
from linteval_ray.validate.sandbox.seccomp import box_filter, filter_fd
from linteval_ray.validate.sandbox.uids import UidClaim, claim_uid, kill_processes_of_uid

log = logging.getLogger(__name__)

TIMEOUT = "/usr/bin/timeout"  # coreutils

# Merged-usr top-level entries: symlinks on Debian 12, directories elsewhere.
_USR_LINKS = ("/bin", "/lib", "/lib64", "/sbin", "/lib32", "/libx32")
# /etc entries programs need: the linker cache, `java`/`javac` alternatives,
# and the JVM's config (its lib/jvm.cfg and conf/ are symlinks into /etc).
_ETC_ENTRIES = ("/etc/ld.so.cache", "/etc/alternatives", "/etc/java-17-openjdk")
_PROC_HIDDEN = ("/proc/key-users", "/proc/keys")
# Box paths a caller mount may not replace.
_RESERVED = ("/", "/usr", "/proc", "/dev", "/tmp", "/etc", BOX_DIR, BOX_PATH)

INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap) "
    "and enable unprivileged user namespaces if not running as root "
    "(sysctl kernel.unprivileged_userns_clone=1 / user.max_user_namespaces>0; on Ubuntu 24.04+ "
    "kernel.apparmor_restrict_unprivileged_userns=0), or opt out explicitly with "
    "validation.sandbox: rlimits and validation.allow_unsafe_sandbox: true (UNSAFE: no isolation)"
)


@register_sandbox
class BwrapSandbox(Sandbox):
    """Runs each command in fresh bubblewrap namespaces as a dedicated uid."""

    name = "bwrap"
    pid_namespace = True

    def __init__(self, bwrap: str | None = None, *, extra_ro_binds: Iterable[str | Path] = ()) -> None:
        self.bwrap = bwrap or shutil.which("bwrap") or ""
        if not self.bwrap or not os.access(self.bwrap, os.X_OK):
            raise SandboxError(f"bubblewrap (bwrap) not found: {INSTALL_HINT}")
        self.privileged = os.geteuid() == 0
        self._init = box_init_binary()
        self._extra_ro_binds = [Path(p) for p in extra_ro_binds]
        for path in self._extra_ro_binds:
            if not path.is_absolute():
                raise SandboxError(f"extra read-only bind {path} must be an absolute path")
            self._check_visible(path)
        self._seccomp = box_filter()
        if self._seccomp is None:
            log.warning("no seccomp filter for %s: programs may create user namespaces, use the keyring, "
                        "ptrace and io_uring", platform.machine())
        # Claimed uids (the first at once, more when runs overlap) and those not in use.
        self._claims: list[UidClaim] = [claim_uid()] if self.privileged else []
        self._idle: list[int] = [c.uid for c in self._claims]
        self._uid_lock = threading.Lock()
        self._closed = False
        self._skeleton = self._skeleton_args()
        self._probe()
        self._cgroup_leftovers: list[RunCgroup] = []
        self._cgroups, why = MemoryCgroups.find()
        if self._cgroups is None:
            log.info("no memory cgroup per run (%s): programs' memory is bounded by their address space", why)

    @classmethod
    def open(cls, setup: SandboxSetup) -> BwrapSandbox:
        """The toolchain's bwrap (else the one on PATH), its tools and ``setup.ro_binds`` bound read-only."""
        return cls(setup.toolchain.bwrap if setup.toolchain else None, extra_ro_binds=setup.ro_binds)

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
        workdir: Path,
        limits: RunLimits,
        stdin: bytes | Path | None = None,
        mounts: list[Mount] | None = None,
        env: dict[str, str] | None = None,
        as_pid1: bool = False,
        fds: tuple[int, ...] = (),
    ) -> RunResult:
        if self._closed:
            raise SandboxError("sandbox is closed")
        workdir = Path(workdir).resolve()
        if not workdir.is_dir():
            raise SandboxError(f"workdir {workdir} is not a directory")
        mount_args = [arg for mount in mounts or [] for arg in self._mount_args(mount)]
        uid = self._take_uid()
        try:
            return self._run_as(uid, argv, workdir, limits, stdin, mount_args, env, as_pid1, fds)
        finally:
            self._give_back_uid(uid)

    def _run_as(
        self,
        uid: int,
        argv: list[str],
        workdir: Path,
        limits: RunLimits,
        stdin: bytes | Path | None,
        mount_args: list[str],
        env: dict[str, str] | None,
        as_pid1: bool,
        fds: tuple[int, ...],
    ) -> RunResult:
        if self.privileged:
            _give_to_uid(workdir, uid)
        cgroup = self._cgroups.create(limits.resident_mb) if self._cgroups and limits.resident_mb else None
        try:
            result = self._run_in_box(uid, argv, workdir, limits, stdin, mount_args, env, as_pid1, fds, cgroup)
            if cgroup is not None:
                counted = cgroup.counts()
                if counted.peak_mb == 0:  # nothing was ever charged to it
                    raise SandboxError(f"the run did not join its memory cgroup {cgroup.path}")
                result.memory_peak_mb, result.oom_killed = counted.peak_mb, counted.oom_kills > 0
            return result
        finally:
            if cgroup is not None:
                self._remove_cgroup(cgroup, uid)

    def _remove_cgroup(self, cgroup: RunCgroup, uid: int) -> None:
        """Remove a run's cgroup, and those earlier runs left (a killed run's processes may still be
        leaving its pid namespace)."""
        with self._uid_lock:
            pending, self._cgroup_leftovers = [*self._cgroup_leftovers, cgroup], []
        if not cgroup.remove() and self.privileged:
            kill_processes_of_uid(uid)
        left = [c for c in pending if not c.remove()]
        with self._uid_lock:
            self._cgroup_leftovers += left

    def _run_in_box(
        self,
        uid: int,
        argv: list[str],
        workdir: Path,
        limits: RunLimits,
        stdin: bytes | Path | None,
        mount_args: list[str],
        env: dict[str, str] | None,
        as_pid1: bool,
        fds: tuple[int, ...],
        cgroup: RunCgroup | None,
    ) -> RunResult:
        status_r, status_w = os.pipe()
        ready_r, ready_w = os.pipe()
        try:
            seccomp_fd = None if self._seccomp is None else filter_fd(self._seccomp)
            command = [*prlimit_argv(limits), *self._bwrap_argv(workdir, mount_args, status_fd=status_w),
                       *self._box_init(uid, limits, ready_fd=ready_w, seccomp_fd=seccomp_fd, reaper=not as_pid1),
                       *argv]
            ours = (status_w, ready_w) if seccomp_fd is None else (status_w, ready_w, seccomp_fd)
            result = run_limited(
                command,
                cwd="/",
                limits=limits,
                env=build_env(env),
                stdin=stdin,
                exit_code_signals=True,
                pass_fds=(*ours, *fds),
                cgroup=cgroup,
            )
            status = read_available(status_r)
            ready = read_available(ready_r)
        finally:
            os.close(status_r)
            os.close(ready_r)
        # Killing bwrap does not wait for its pid namespace to be torn down:
        # make sure nothing of this uid outlives the run.
        if (self.privileged and (result.timed_out or result.output_exceeded)
                and (stragglers := kill_processes_of_uid(uid))):
            log.debug("killed %d leftover processes of uid %d", len(stragglers), uid)
        # bwrap reports the program's exit code only if the box was set up, and the init says
        # "ready" only once /tmp is sized and privileges are dropped; without both the failure is
        # the sandbox's (bad mount, no namespaces), not the program's.
        if (b'"exit-code"' not in status or ready != READY) and not (result.timed_out or result.output_exceeded):
            detail = result.stderr.decode(errors="replace").strip()
            how = f"exit {result.exit_code}" if result.signal is None else f"signal {result.signal}"
            raise SandboxError(f"bwrap could not set up the box ({how}, init {'ready' if ready else 'not ready'}, "
                               f"status {status[:200]!r}): {detail}")
        return result

    def close(self) -> None:
        with self._uid_lock:
            self._closed = True
            for claim in self._claims:
                claim.release()
            self._claims.clear()
            self._idle.clear()

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

    def _bwrap_argv(self, workdir: Path, mount_args: list[str], *, status_fd: int) -> list[str]:
        """The bwrap command line, up to the box's init."""
        args = [self.bwrap, "--json-status-fd", str(status_fd), *self._skeleton, "--bind", str(workdir), BOX_DIR]
        return [*args, *mount_args, "--chdir", BOX_DIR, "--"]

    def _mount_args(self, mount: Mount) -> list[str]:
        dst = os.path.normpath(mount.dst)
        if not os.path.isabs(dst) or dst in _RESERVED:
            raise SandboxError(f"mount destination {mount.dst!r} is not allowed")
        src = Path(mount.src).resolve()
        self._check_visible(src)
        return [*_parent_dirs(dst), "--bind" if mount.writable else "--ro-bind", str(src), dst]

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

    def _skeleton_args(self) -> list[str]:
        """Namespaces and the read-only root shared by every run of this sandbox."""
        # The capabilities the box's init needs, all dropped before the program starts:
        # SYS_ADMIN sizes /tmp; as root SETUID/SETGID drop to the sandbox uid and SETPCAP empties the
        # bounding set; in a user namespace SYS_RESOURCE caps its child namespaces at one and SETFCAP
        # lets the init map the caller's uid in that child. Being the namespace's root (uid 0) keeps
        # bwrap from making that child itself (its --disable-userns), which would leave the init no
        # capability over the box's mounts.
        if self.privileged:
            namespaces = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
            caps = ["--cap-drop", "ALL", "--cap-add", "CAP_SYS_ADMIN",
                    "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
        else:
            namespaces = ["--unshare-all", "--unshare-user", "--uid", "0", "--gid", "0"]
            caps = ["--cap-drop", "ALL", "--cap-add", "CAP_SYS_ADMIN",
                    "--cap-add", "CAP_SYS_RESOURCE", "--cap-add", "CAP_SETFCAP"]
        args = [*namespaces, "--as-pid-1", "--die-with-parent", "--new-session", *caps,
                "--hostname", "box", "--tmpfs", "/"]
        args += ["--ro-bind", "/usr", "/usr"]
        for top in _USR_LINKS:
            if os.path.islink(top):
                args += ["--symlink", os.readlink(top), top]
            elif os.path.isdir(top):
                args += ["--ro-bind", top, top]
        args += ["--perms", "0755", "--dir", "/etc"]
        for entry in _ETC_ENTRIES:
            if os.path.exists(entry):
                args += ["--ro-bind", entry, entry]
        # /tmp before the binds: a bind below /tmp must not be hidden by the tmpfs.
        args += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--tmpfs", "/tmp"]
        # Host-wide keyring tables (which uids hold keys); the keyring syscalls are refused anyway.
        for table in _PROC_HIDDEN:
            args += ["--ro-bind-try", "/dev/null", table]
        for path in self._extra_ro_binds:
            args += [*_parent_dirs(str(path)), "--ro-bind", str(path), str(path)]
        return [*args, "--ro-bind", self._init, BOX_PATH]

    def _box_init(self, uid: int, limits: RunLimits, *, ready_fd: int, seccomp_fd: int | None,
                  reaper: bool = True) -> list[str]:
        """What runs as the box's pid 1 in front of the program: the init (``box_init.c``) sizes
        the box's /tmp tmpfs (bwrap 0.8 has no ``--size``; a write past it is ENOSPC, the program's
        failure, and the tmpfs dies with the box's mount namespace), drops to the sandbox uid (as
        root) or the caller's uid (in a user namespace) with no capabilities, installs the seccomp
        filter, then execs ``timeout 0`` (no time limit), which stays as pid 1, waits for the
        program and exits with its status (128+N for signal N). bwrap's own pid-1 reaper is not
        used because bwrap never waits for it, so the program's CPU time would be missing from the
        rusage we collect. Without ``reaper`` the program itself stays as pid 1 (``as_pid1``)."""
        ids = (uid, uid) if self.privileged else (os.geteuid(), os.getegid())
        init = box_init_argv(ready_fd=ready_fd, seccomp_fd=seccomp_fd, limits=limits, setuid=self.privileged,
                             uid=ids[0], gid=ids[1])
        return [*init, TIMEOUT, "0"] if reaper else init

    def _probe(self) -> None:
        """Fail now, with a useful message, if bwrap cannot create namespaces here."""
        ready_r, ready_w = os.pipe()
        fds = (ready_w,) if self._seccomp is None else (ready_w, filter_fd(self._seccomp))
        init = self._box_init(self.uid, RunLimits(wall_s=30), ready_fd=ready_w,
                              seccomp_fd=fds[1] if len(fds) > 1 else None)
        argv = [self.bwrap, *self._skeleton, "--", *init, "/usr/bin/true"]
        try:
            done = subprocess.run(argv, env=build_env(None), capture_output=True, timeout=30, check=False, pass_fds=fds)
            ready = read_available(ready_r)
        except (OSError, subprocess.TimeoutExpired) as exc:
            self.close()
            raise SandboxError(f"bwrap does not work here ({exc}): {INSTALL_HINT}") from exc
        finally:
            for fd in (ready_r, *fds):
                os.close(fd)
        if done.returncode != 0 or ready != READY:
            detail = done.stderr.decode(errors="replace").strip()
            self.close()
            raise SandboxError(f"bwrap does not work here ({detail or f'exit {done.returncode}'}): {INSTALL_HINT}")


def _parent_dirs(dst: str) -> list[str]:
    """Create a mount point's missing parents world-searchable (bwrap's own are 0700,
    which the sandbox uid cannot traverse); existing directories are left as they are."""
    args: list[str] = []
    for parent in reversed(Path(dst).parents[:-1]):  # without "/"
        args += ["--perms", "0755", "--dir", str(parent)]
    return args


def _give_to_uid(workdir: Path, uid: int) -> None:
    """Make the workdir tree owned by the sandbox uid, never following symlinks
    (a previous run may have planted links to host files)."""
    os.chown(workdir, uid, uid, follow_symlinks=False)
    # bwrap enters /box as capability-less root before dropping to the uid: it needs search permission.
    os.chmod(workdir, 0o711)
    for _root, dirs, files, root_fd in os.fwalk(workdir, follow_symlinks=False):
        for name in (*dirs, *files):
            os.chown(name, uid, uid, dir_fd=root_fd, follow_symlinks=False)
