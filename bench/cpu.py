"""CPU accounting shared by the naive harness, the actor instrumentation and the runner.

CPU, not wall time: the machine is shared and noisy. A process's CPU here is its own
(all threads), plus its reaped children (``RUSAGE_CHILDREN``: every sandboxed run, compile
and fresh linter), plus its live children (the warm pylint worker, read from /proc).
"""

from __future__ import annotations

import os
import resource
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


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


def process_cpu_s(pid: int) -> float:
    """utime + stime + cutime + cstime of one process (0 if it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(v) for v in fields[11:15]) / CLOCK_TICKS


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
