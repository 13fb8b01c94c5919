"""Progress lines for logs: done/total, rate, ETA, and the outcome so far.

Ray Data draws its own bars on a terminal; batch jobs (``ray job submit``, CI)
get these periodic lines instead, which is what one greps in a job log.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Sequence

from linteval_ray.schema import Status

log = logging.getLogger("linteval_ray.progress")


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"


class Progress:
    """Counts validated rows by status; logs a line every ``every_s`` seconds and at the end.
    ``total`` None: a stream whose length is known only at its end (no ETA then)."""

    def __init__(self, total: int | None, already_done: int = 0, every_s: float = 10.0):
        self.total = total
        self.already_done = already_done
        self.done = 0
        self.passed = 0
        self.statuses: Counter[Status] = Counter()
        self._every_s = every_s
        self._start = time.monotonic()
        self._last = 0.0

    def update(self, statuses: Sequence[str], passed: Sequence[bool]) -> None:
        self.done += len(statuses)
        self.passed += sum(bool(p) for p in passed)
        self.statuses.update(Status(s) for s in statuses)
        now = time.monotonic()
        if now - self._last >= self._every_s or self.done == self.total:
            self._last = now
            log.info(self.line())

    def line(self) -> str:
        elapsed = max(time.monotonic() - self._start, 1e-9)
        rate = self.done / elapsed
        # Rows that were not evaluated are named by status: they are what to look into.
        others = ", ".join(f"{k} {v}" for k, v in sorted(self.statuses.items()) if k != Status.EVALUATED)
        if self.total is None:
            where = f"validated {self.done} rows ({rate:.2f}/s)"
        else:
            eta = (self.total - self.done) / rate if rate > 0 else float("inf")
            eta_text = _duration(eta) if eta != float("inf") else "?"
            where = f"validated {self.done}/{self.total} rows ({rate:.2f}/s, ETA {eta_text})"
        return (
            f"{where}; "
            f"passed {self.passed}" + (f"; {others}" if others else "")
            + (f"; {self.already_done} done before resume" if self.already_done else "")
        )
