"""CPU accounting shared by the naive harness, the actor instrumentation and the runner.

CPU, not wall time: the machine is shared and noisy. A process's CPU here is its own
(all threads), plus its reaped children (``RUSAGE_CHILDREN``: every sandboxed run, compile
and fresh linter), plus its live children (the warm pylint worker, read from /proc).
"""

from __future__ import annotations

import logging
import os
import resource
import threading
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
log = logging.getLogger("bench")


def live_children_cpu_s(pid: int | None = None) -> float:
    """utime + stime (and their reaped children) of the live children of ``pid``."""
    pid = pid or os.getpid()
    total = 0.0
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children = (task / "children").read_text().split()
        except OSError:
            continue
        for child in children:
            total += process_cpu_s(int(child))
    return total


def process_cpu_s(pid: int, *, children: bool = True) -> float:
    """utime + stime of one process (0 if it is gone), with its reaped children's (cutime +
    cstime) unless ``children`` is False."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(v) for v in fields[11:15 if children else 13]) / CLOCK_TICKS


def tree_cpu_s() -> float:
    """This process, its reaped children and its live children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + reaped.ru_utime + reaped.ru_stime + live_children_cpu_s()


def peak_rss_mb() -> float:
    """This process's peak resident set (VmHWM)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


class StageMeter:
    """CPU-seconds per (stage, language); nested stages are subtracted from their parent
    by the caller (e.g. tests = judge - compile)."""

    def __init__(self) -> None:
        self.cpu_s: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))

    @contextmanager
    def measure(self, stage: str, language: str) -> Iterator[None]:
        start = tree_cpu_s()
        try:
            yield
        finally:
            self.cpu_s[stage][language] += tree_cpu_s() - start

    def as_dict(self) -> dict[str, dict[str, float]]:
        return {stage: dict(by_language) for stage, by_language in self.cpu_s.items()}


# -- a cgroup (v1 cpuacct) per measured run: the CPU of every process in it, Ray's included -------------

CPUACCT = Path("/sys/fs/cgroup/cpuacct")


def new_cgroup(name: str) -> Path | None:
    """A new cpuacct cgroup, or None where cgroups are not writable (callers fall back)."""
    path = CPUACCT / f"linteval-bench-{os.getpid()}-{name}"
    try:
        path.mkdir()
    except OSError as exc:
        log.warning("no cpuacct cgroup (%s): total CPU from RUSAGE_CHILDREN, which misses Ray workers", exc)
        return None
    return path


def join_cgroup(path: Path) -> None:
    """Move this process (and so everything it starts) into ``path`` (a ``preexec_fn``)."""
    (path / "cgroup.procs").write_text(str(os.getpid()))


def cgroup_cpu_s(path: Path) -> float:
    """CPU-seconds used in ``path`` so far; removes the cgroup when it is empty."""
    usage = int((path / "cpuacct.usage").read_text()) / 1e9
    try:
        path.rmdir()
    except OSError:
        log.warning("cgroup %s still has processes", path)
    return usage


# -- where a cgroup's CPU goes, by process kind ----------------------------------------------------------

SAMPLE_EVERY_S = 0.5


def process_kind(pid: int) -> str:
    """A short name for what ``pid`` is: a Ray worker by its title, a Ray daemon, a Python
    program by its script or module, else its program's name."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return "?"
    words = [a.decode(errors="replace") for a in argv if a]
    if not words:
        return "?"
    if words[0].startswith("ray::"):  # a Ray worker's title: ray::<actor or task name>(...)
        return words[0].split("(")[0].split()[0]
    program = Path(words[0]).name
    if program.startswith("python"):
        for index, word in enumerate(words[1:], start=1):
            if word == "-c":
                return "python -c"
            if word == "-m":
                return f"python -m {words[index + 1] if index + 1 < len(words) else ''}"
            if not word.startswith("-"):
                return Path(word).name
    return program


class CgroupSampler:
    """Samples every process of a cgroup every ``SAMPLE_EVERY_S`` and keeps, per pid, its last
    own CPU and its kind. Processes that live less than a sample (compilers, sandboxed runs)
    are mostly missed: this says where the long-lived processes' CPU goes, i.e. "other"."""

    def __init__(self, cgroup: Path) -> None:
        self.cgroup = cgroup
        self.seen: dict[int, tuple[str, float]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def __enter__(self) -> CgroupSampler:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _loop(self) -> None:
        while not self._stop.wait(SAMPLE_EVERY_S):
            try:
                pids = [int(p) for p in (self.cgroup / "cgroup.procs").read_text().split()]
            except OSError:
                return
            for pid in pids:
                kind = process_kind(pid)  # read again: a Ray worker takes its actor's title later
                if kind == "?" and pid in self.seen:
                    kind = self.seen[pid][0]
                cpu = process_cpu_s(pid, children=False)  # children are sampled apart
                if cpu:
                    self.seen[pid] = (kind, cpu)

    def by_kind(self) -> dict[str, float]:
        """CPU-s per process kind, largest first."""
        totals: dict[str, float] = defaultdict(float)
        for kind, cpu in self.seen.values():
            totals[kind] += cpu
        return dict(sorted(totals.items(), key=lambda kv: -kv[1]))
