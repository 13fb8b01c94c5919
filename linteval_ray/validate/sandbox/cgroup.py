"""Memory cgroups: the memory a run's processes use together, bounded and counted by the kernel.

An address-space limit (RLIMIT_AS) counts memory a program reserves, not memory it uses: glibc
reserves each new thread's stack at RLIMIT_STACK (the memory limit, for deep recursion), so under
RLIMIT_AS near the memory limit an honest program's first ``std::thread`` could not start; and an
allocation it refuses leaves no trace but the program's own words (``std::bad_alloc`` in stderr).
A memory cgroup per run counts what the run's processes touch (heap, stacks, tmpfs files, page
tables), makes the kernel's OOM killer end the run at its limit, and keeps the kernel's own record
of it: the peak (``memory.max_usage_in_bytes`` / ``memory.peak``) and the OOM kills
(``memory.oom_control`` / ``memory.events``). Those, never the program's output, decide
``memory_limit``.

Each run's cgroup is a child of the worker's own memory cgroup (so whatever bounds the worker, a
container or a Ray node's limit, still bounds its runs), named ``linteval-<pid>-<n>``, created
before the run (the run's first process joins it before its exec: the box's init writes to
``procs``; nothing of the box's own is ever in it) and removed after it;
those of a killed worker are removed by the next one on the node. Swap is not allowed to extend
the limit. Only as root (creating cgroups needs it), with cgroup v1's memory controller or a v2
hierarchy whose worker cgroup delegates ``memory`` to its children; elsewhere runs are bounded by
their address space as before (``MemoryCgroups.find`` returns None and says why).
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import logging
import os
import threading
from pathlib import Path

from pydantic import BaseModel

log = logging.getLogger(__name__)

PREFIX = "linteval-"


class MemoryCounts(BaseModel):
    """What the kernel recorded of one run's memory."""

    peak_mb: float
    oom_kills: int


class RunCgroup:
    """One run's memory cgroup (a directory of the cgroup file system)."""

    def __init__(self, path: Path, version: int) -> None:
        self.path, self.version = path, version

    @property
    def procs(self) -> Path:
        """Writing "0" here moves the writing process in (the run's first process does, before its exec)."""
        return self.path / "cgroup.procs"

    def counts(self) -> MemoryCounts:
        if self.version == 1:
            peak = int(_read(self.path / "memory.max_usage_in_bytes"))
            kills = _field(_read(self.path / "memory.oom_control"), "oom_kill")
        else:
            peak = int(_read(self.path / "memory.peak"))
            kills = _field(_read(self.path / "memory.events"), "oom_kill")
        return MemoryCounts(peak_mb=peak / (1 << 20), oom_kills=kills)

    def remove(self) -> bool:
        """Gone (True), or still holding a process (a straggler of a killed run: removed later)."""
        try:
            os.rmdir(self.path)
        except FileNotFoundError:
            return True
        except OSError as exc:
            if exc.errno != errno.EBUSY:
                raise
            return False
        return True


# Run cgroups are named by the process and a number: one count for the process, since several
# sandboxes (each with its MemoryCgroups) may live in one (an in-process validation beside another).
_RUN_NUMBERS = itertools.count()
_RUN_NUMBERS_LOCK = threading.Lock()


class MemoryCgroups:
    """Creates the runs' cgroups under the worker's own memory cgroup."""

    def __init__(self, parent: Path, version: int) -> None:
        self.parent, self.version = parent, version
        self._sweep_stale()

    @classmethod
    def find(cls) -> tuple[MemoryCgroups | None, str]:
        """The worker's memory cgroups, or None and why there are none here."""
        if os.geteuid() != 0:
            return None, "not root: only root may create cgroups"
        parent, version = _own_memory_cgroup()
        if parent is None:
            return None, "no memory cgroup controller is mounted"
        if version == 2 and "memory" not in _read(parent / "cgroup.subtree_control").split():
            return None, f"cgroup v2: {parent} does not delegate the memory controller to its children"
        cgroups = cls(parent, version)
        try:
            cgroups.create(64).remove()
        except OSError as exc:
            return None, f"cannot create a memory cgroup under {parent}: {exc}"
        return cgroups, ""

    def create(self, limit_mb: int) -> RunCgroup:
        """A new cgroup whose processes may use ``limit_mb`` MB of memory together, without swap."""
        with _RUN_NUMBERS_LOCK:
            name = f"{PREFIX}{os.getpid()}-{next(_RUN_NUMBERS)}"
        cgroup = RunCgroup(self.parent / name, self.version)
        cgroup.path.mkdir()
        try:
            limit = str(limit_mb << 20)
            if self.version == 1:
                (cgroup.path / "memory.limit_in_bytes").write_text(limit)
                swap = cgroup.path / "memory.memsw.limit_in_bytes"
                if swap.exists():  # the kernel counts swap: memory + swap may not exceed the limit either
                    swap.write_text(limit)
            else:
                (cgroup.path / "memory.max").write_text(limit)
                (cgroup.path / "memory.swap.max").write_text("0")
        except BaseException:
            cgroup.remove()
            raise
        return cgroup

    def _sweep_stale(self) -> None:
        """Remove the cgroups of workers that are gone (a SIGKILLed worker leaves its runs' cgroups)."""
        for path in self.parent.glob(f"{PREFIX}*-*"):
            pid = path.name[len(PREFIX):].split("-", 1)[0]
            if pid.isdigit() and not Path(f"/proc/{pid}").exists():
                with contextlib.suppress(OSError):
                    os.rmdir(path)


def _own_memory_cgroup() -> tuple[Path | None, int]:
    """The directory of this process's memory cgroup and the hierarchy's version (v1 preferred)."""
    lines = [line.split(":", 2) for line in Path("/proc/self/cgroup").read_text().splitlines()]
    mounts = [line.split(" - ") for line in Path("/proc/self/mountinfo").read_text().splitlines()]
    for version, wanted in ((1, "cgroup"), (2, "cgroup2")):
        for _, controllers, path in lines:
            if (version == 1 and "memory" not in controllers.split(",")) or (version == 2 and controllers):
                continue
            for before, after in mounts:
                kind, _, options = after.split(" ", 2)
                if kind == wanted and (version == 2 or "memory" in options.split(",")):
                    root, mountpoint = before.split(" ")[3:5]
                    return _inside(Path(mountpoint), root, path), version
    return None, 0


def _inside(mountpoint: Path, root: str, path: str) -> Path:
    """Where cgroup ``path`` is, in a cgroup file system mounted at ``mountpoint`` from ``root``."""
    relative = os.path.relpath(path, root) if path.startswith(root) else path.lstrip("/")
    return mountpoint if relative == "." else mountpoint / relative


def _read(path: Path) -> str:
    return path.read_text()


def _field(text: str, name: str) -> int:
    """``name N`` of a flat-keyed cgroup file (0 when the kernel does not report it)."""
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        if key == name:
            return int(value)
    return 0
