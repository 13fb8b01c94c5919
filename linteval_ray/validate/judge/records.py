"""What the judge records per test: the original's run on it (``ReferenceTest``, which scales the
time limit) and a revision's judged run (``TestRecord``). Plain models below every judging module,
so limits, runners and failure descriptions name them without importing the modules that make them.
"""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel

from linteval_ray.schema.result import Verdict


class ReferenceTest(BaseModel):
    name: str
    wall_s: float
    cpu_s: float


class TestRecord(BaseModel):
    """One test of a revision; ``verdict`` None means it was skipped after a time limit."""

    name: str
    verdict: Verdict | None
    time_limit_s: float
    wall_s: float = 0.0
    cpu_s: float = 0.0
    detail: str = ""
    evidence: str = ""  # the system's facts that decided a failed test's verdict (never the program's text)
    # How the run ended, for ``first_failure`` (the output head is kept for failed tests only).
    exit_code: int | None = None
    signal: int | None = None
    peak_rss_mb: float | None = None
    output_head: bytes = b""
    output_more: bool = False


class OutputChecks(Protocol):
    """Where the outputs of runs that ended normally go to be judged: by default the problem's
    checker in batches (``run.PendingChecks``); a task with its own comparison passes its own
    (``run.run_tests``'s ``checks``). ``add`` may be called from several threads."""

    def add(self, record: TestRecord, output: bytes) -> None:
        """Judge ``output`` of ``record``'s run (now or later): set ``record.verdict`` (and its
        detail, evidence and output head when it failed) by ``finish`` at the latest."""

    def finish(self) -> None:
        """Judge what is still pending."""
