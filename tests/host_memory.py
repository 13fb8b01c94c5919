"""The host's shared memory (tmpfs pages) while a test runs: what an unsized box /tmp would fill."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pydantic import BaseModel


def shmem_mb() -> float:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("Shmem:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no Shmem in /proc/meminfo")


class ShmemRise(BaseModel):
    before: float
    peak: float

    @property
    def mb(self) -> float:
        return self.peak - self.before


@contextmanager
def shmem_rise() -> Iterator[ShmemRise]:
    """How far the host's Shmem rose above its level at entry, sampled every 50 ms (read on exit)."""
    level = shmem_mb()
    rise = ShmemRise(before=level, peak=level)
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.05):
            rise.peak = max(rise.peak, shmem_mb())

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        yield rise
    finally:
        done.set()
        sampler.join()
        rise.peak = max(rise.peak, shmem_mb())
