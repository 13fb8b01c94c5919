"""The reaper: a tiny C program in front of every run that reports the run's true peak memory.

A process spawned by a big parent (a Ray actor holding pyarrow, a warm pylint...) inherits the
parent's peak resident size at exec, so ``wait4`` on it cannot tell a 20 MB program from the
parent. ``reaper.c`` forks the run from its own small process and writes the child tree's
``ru_maxrss`` to a pipe. It is compiled once per source version (see ``native``).
"""

from __future__ import annotations

from pathlib import Path

from linteval_ray.validate.sandbox.native import compiled

SOURCE = Path(__file__).with_name("reaper.c")


def reaper_binary() -> str:
    """The compiled reaper for this source, built on first use."""
    return compiled(SOURCE)


def parse_report(report: bytes) -> float | None:
    """Peak resident MB from the reaper's line, None when it wrote none (it was killed)."""
    try:
        return int(report) / 1024
    except ValueError:
        return None
