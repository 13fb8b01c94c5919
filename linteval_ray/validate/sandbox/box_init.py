"""The init in front of every sandboxed run (``box_init.c``): its command line and its report.

Every path to a run ends in this one init, whoever built the box (the box server, bubblewrap, or
no box for the unsafe ``rlimits`` sandbox): it sizes the box's tmpfs's, starts the run in its
cgroups under its rlimits with no privileges and the seccomp filter, forwards signals, enforces the
wall cap, ends every process of the box when the run's first one exits, and reports how the run
ended with the CPU time and peak memory of every process it ran (see the C file's header).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path

from linteval_ray.validate.sandbox.base import BOX_DIR, RunLimits
from linteval_ray.validate.sandbox.native import compiled

INIT_PATH = "/.box-init"  # where a box's builder binds the init, read-only

SOURCE = Path(__file__).with_name("box_init.c")
SHM_DIR = "/dev/shm"
TMP_DIR = "/tmp"


def box_init_binary() -> str:
    """The compiled init for this source, built on first use."""
    return compiled(SOURCE)


def cpu_limit_s(limits: RunLimits) -> int:
    """RLIMIT_CPU soft limit in whole seconds (the kernel's granularity)."""
    cpu = limits.cpu_s if limits.cpu_s is not None else limits.wall_s + 1
    return max(1, math.ceil(cpu))


def tmp_inodes(limits: RunLimits) -> int:
    """Files a box's tmpfs may hold: empty files cost kernel memory that ``size`` does not count (about
    1 KiB each: 16 MB at most for 64 MB), and a test may well make thousands of files or folders."""
    return max(1024, limits.tmp_mb * 256)


@dataclass
class InitOptions:
    """What the init is told for one run (descriptors by their numbers where the init runs)."""

    report_fd: int
    limits: RunLimits
    identity: str = "keep"  # "setuid:UID:GID", "userns:UID:GID" or "keep"
    seccomp_fd: int | None = None
    cgroup_fds: list[int] = field(default_factory=list)
    pid1: bool = True
    box_tmpfs: bool = False  # /box is a tmpfs of the run's own (no work dir)
    sized_tmp: bool = True  # the box's /tmp and /dev/shm are tmpfs's to size and mount

    def argv(self, program: list[str]) -> list[str]:
        limits = self.limits
        size, inodes = limits.tmp_mb << 20, tmp_inodes(limits)
        args = [f"report={self.report_fd}", f"identity={self.identity}", f"wall_ms={int(limits.wall_s * 1000)}"]
        if self.pid1:
            args.append("pid1")
        if self.seccomp_fd is not None:
            args.append(f"seccomp={self.seccomp_fd}")
        args += [f"cgroup={fd}" for fd in self.cgroup_fds]
        if self.sized_tmp:
            args += [f"resize={TMP_DIR}:{size}:{inodes}", f"tmpfs={SHM_DIR}:{size}:{inodes}:1777"]
        if self.box_tmpfs:
            args.append(f"tmpfs={BOX_DIR}:{size}:{inodes}:0755:own")
        return [INIT_PATH if self.pid1 else box_init_binary(), *args, *rlimit_args(limits), "--", *program]


def rlimit_args(limits: RunLimits) -> list[str]:
    """The run's rlimits: RLIMIT_CPU's soft limit sends SIGXCPU, its hard one (a second later) SIGKILL."""
    cpu = cpu_limit_s(limits)
    memory = "inf" if limits.memory_mb is None else str(limits.memory_mb << 20)
    args = [f"rlimit=cpu:{cpu}:{cpu + 1}", f"rlimit=as:{memory}:{memory}",
            f"rlimit=fsize:{limits.file_size_mb << 20}:{limits.file_size_mb << 20}",
            f"rlimit=nofile:{limits.nofile}:{limits.nofile}", f"rlimit=nproc:{limits.nproc}:{limits.nproc}",
            "rlimit=core:0:0"]
    if limits.stack_mb is not None:
        args.append(f"rlimit=stack:{limits.stack_mb << 20}:{limits.stack_mb << 20}")
    return args


@dataclass(frozen=True)
class InitReport:
    """What the init said of a run: None fields when it wrote nothing (it was killed)."""

    started: bool = False
    failure: str | None = None  # why the box was never ready (the init's "failed ..." line)
    status: int | None = None  # the run's wait status
    cpu_s: float = 0.0  # user + system time of every process of the run
    peak_rss_mb: float | None = None  # the largest of them
    wall_capped: bool = False

    @classmethod
    def parse(cls, text: bytes) -> InitReport:
        lines = text.decode("ascii", "replace").splitlines()
        if not lines:
            return cls()
        if lines[0].startswith("failed"):
            return cls(failure=lines[0].removeprefix("failed").strip())
        words = lines[1].split() if len(lines) > 1 else []
        if lines[0] != "started" or len(words) != 10 or words[0] != "status":  # killed before its end
            return cls(started=lines[0] == "started")
        values = dict(zip(words[0::2], (int(w) for w in words[1::2]), strict=True))
        return cls(started=True, status=values["status"], cpu_s=(values["utime_us"] + values["stime_us"]) / 1e6,
                   peak_rss_mb=values["maxrss_kb"] / 1024, wall_capped=bool(values["wall_capped"]))

    @property
    def exit_code(self) -> int | None:
        return None if self.status is None or os.WIFSIGNALED(self.status) else os.WEXITSTATUS(self.status)

    @property
    def signal(self) -> int | None:
        return os.WTERMSIG(self.status) if self.status is not None and os.WIFSIGNALED(self.status) else None
