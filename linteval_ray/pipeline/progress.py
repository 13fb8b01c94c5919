"""Progress of a run: a live bar on a terminal, periodic lines in a log.

When stderr is a terminal, one line is redrawn in place, as Ray Data draws its bars:
done/total, the bar, rate, elapsed and ETA, and the outcome so far (passed, failed, errors:
rows not evaluated). It ends with a summary line. Anything else written to stderr or stdout
(logs, Ray's forwarded worker output) first clears the bar, which is redrawn below it.
Elsewhere (``ray job submit``, CI, a file) the periodic log lines: what one greps in a job log.

Ray Data's own progress is off for the datasets a run iterates (``without_ray_progress``): on a
terminal two writers redrawing one line garble it, and elsewhere Ray Data logs a block of nine
lines every 10 s (``RAY_DATA_NON_TTY_PROGRESS_LOG_INTERVAL``) beside our one line: thousands of
lines in a full split's job log. Its warnings are logged as before.
"""

from __future__ import annotations

import logging
import math
import os
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import IO, TYPE_CHECKING, Any

from linteval_ray.schema import Status

if TYPE_CHECKING:
    import ray.data

log = logging.getLogger("linteval_ray.progress")

CLEAR_LINE = "\r\x1b[K"
REDRAW_S = 1.0  # the bar's clock ticks between batches too
_BAR_CELLS = " ▏▎▍▌▋▊▉█"


def without_ray_progress(ds: ray.data.Dataset) -> ray.data.Dataset:
    """``ds`` with Ray Data's progress reporting off (see the module docstring). A dataset runs with the
    context it was created with, a copy of the current one, so it is set there, not on the current."""
    ds.context.enable_progress_bars = False
    return ds


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"


class Progress:
    """Counts validated rows by status; draws a live bar on a terminal (``live``), else logs a
    line every ``every_s`` seconds. Use as a context manager: leaving it ends the bar with a
    summary line (or logs the final line). ``total`` None: a stream whose length is not known
    (no ETA, no share then); a total known only roughly is best given as None."""

    def __init__(self, total: int | None, already_done: int = 0, every_s: float = 10.0,
                 stream: IO[str] | None = None, live: bool | None = None):
        self.total = total
        self.already_done = already_done
        self.done = 0
        self.passed = 0
        self.statuses: Counter[Status] = Counter()
        self._every_s = every_s
        self._start = time.monotonic()
        self._last = -math.inf  # the first update logs at once (monotonic time can start near 0: a fresh boot)
        self._stream = stream or sys.stderr
        self.live = _is_terminal(self._stream) if live is None else live
        self._bar: _LiveBar | None = None
        self._blocks = "utf" in (getattr(self._stream, "encoding", None) or "").lower()  # else '#'

    def __enter__(self) -> Progress:
        if self.live:
            self._bar = _LiveBar(self._stream, self.bar)
            self._bar.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._bar is not None:
            self._bar.stop(self.summary())
            self._bar = None
        else:
            log.info(self.line())

    def update(self, statuses: Sequence[str], passed: Sequence[bool]) -> None:
        self.done += len(statuses)
        self.passed += sum(bool(p) for p in passed)
        self.statuses.update(Status(s) for s in statuses)
        if self._bar is not None:
            self._bar.draw()
            return
        now = time.monotonic()
        if now - self._last >= self._every_s or self.done == self.total:
            self._last = now
            log.info(self.line())

    # -- what is shown -------------------------------------------------------------------------

    @property
    def failed(self) -> int:
        """Evaluated rows that did not pass."""
        return self.statuses[Status.EVALUATED] - self.passed

    @property
    def errors(self) -> int:
        """Rows not evaluated (invalid input or problem, generation or evaluator errors)."""
        return self.done - self.statuses[Status.EVALUATED]

    def _rate_and_eta(self) -> tuple[float, str]:
        rate = self.done / max(time.monotonic() - self._start, 1e-9)
        if self.total is None or rate <= 0:
            return rate, "?"
        return rate, _duration(max(0, self.total - self.done) / rate)

    def _count(self) -> str:
        return f"{self.done}/{self.total}" if self.total is not None else str(self.done)

    def _others(self) -> str:
        # Rows that were not evaluated are named by status: they are what to look into.
        return ", ".join(f"{k} {v}" for k, v in sorted(self.statuses.items()) if k != Status.EVALUATED)

    def _resumed(self) -> str:
        return f"; {self.already_done} done before resume" if self.already_done else ""

    def line(self) -> str:
        """The periodic log line."""
        rate, eta = self._rate_and_eta()
        others = self._others()
        where = f"({rate:.2f}/s, ETA {eta})" if self.total is not None else f"({rate:.2f}/s)"
        return (f"validated {self._count()} rows {where}; passed {self.passed}"
                + (f"; {others}" if others else "") + self._resumed())

    def bar(self, width: int) -> str:
        """The live line, at most ``width`` characters."""
        rate, eta = self._rate_and_eta()
        elapsed = _duration(time.monotonic() - self._start)
        timing = f"{elapsed}<{eta}" if self.total is not None else elapsed
        tail = (f" {self._count()} rows [{timing}, {rate:.2f} rows/s] "
                f"passed {self.passed} · failed {self.failed} · errors {self.errors}")
        room = width - 1  # never the last column: a wrap would break the redraw
        if self.total is None:  # no share to draw: the counts alone
            return ("validate" + tail)[: max(0, room)]
        share = self.done / self.total if self.total else 1.0
        head = f"validate {100 * share:3.0f}%"
        cells = min(30, room - len(head) - len(tail) - 2)
        text = f"{head}|{_bar_cells(share, cells, self._blocks)}|{tail}" if cells >= 5 else head + tail
        return text[: max(0, room)]

    def summary(self) -> str:
        """The line left on the terminal when the bar ends."""
        rate = self.done / max(time.monotonic() - self._start, 1e-9)
        others = self._others()
        return (f"validated {self._count()} rows in {_duration(time.monotonic() - self._start)} "
                f"({rate:.2f} rows/s): passed {self.passed}, failed {self.failed}, errors {self.errors}"
                + (f" ({others})" if others else "") + self._resumed())


def _bar_cells(share: float, cells: int, blocks: bool) -> str:
    share = max(0.0, min(1.0, share))
    if not blocks:
        return ("#" * round(share * cells)).ljust(cells)
    full, part = divmod(round(share * cells * 8), 8)
    return ("█" * full + (_BAR_CELLS[part] if part else "")).ljust(cells)


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # closed or not a real file
        return False


class _LiveBar:
    """Draws ``render(width)`` in place on ``stream`` until stopped, with stdout and stderr
    (and the logging handlers writing to them) routed through ``_AboveBar``, so other output
    lands above the bar instead of inside it."""

    def __init__(self, stream: IO[str], render: Callable[[int], str]):
        self.stream = stream
        self.render = render
        self.lock = threading.RLock()
        self.shown = False
        self.held = False  # a line written above the bar is not finished yet: no redraw until it is
        self._stop = threading.Event()
        self._ticker = threading.Thread(target=self._tick, name="progress-bar", daemon=True)
        self._swapped: list[tuple[Any, str, Any]] = []  # (owner, attribute, original)

    def start(self) -> None:
        for name in ("stderr", "stdout"):
            original = getattr(sys, name)
            if original is self.stream or _is_terminal(original):
                self._swap(sys, name, _AboveBar(original, self))
        for handler in _stream_handlers():
            if handler.stream in (sys.__stderr__, sys.__stdout__, self.stream):
                self._swap(handler, "stream", _AboveBar(handler.stream, self))
        self.draw()
        self._ticker.start()

    def stop(self, summary: str) -> None:
        self._stop.set()
        self._ticker.join()
        with self.lock:
            for owner, attribute, original in reversed(self._swapped):
                setattr(owner, attribute, original)
            self.clear()
            self.stream.write(summary + "\n")
            self.stream.flush()

    def draw(self) -> None:
        with self.lock:
            if self.held:
                return
            self.stream.write(CLEAR_LINE + self.render(_width(self.stream)))
            self.stream.flush()
            self.shown = True

    def clear(self) -> None:
        with self.lock:
            if self.shown:
                self.stream.write(CLEAR_LINE)
                self.stream.flush()
                self.shown = False

    def _swap(self, owner: Any, attribute: str, replacement: Any) -> None:
        self._swapped.append((owner, attribute, getattr(owner, attribute)))
        setattr(owner, attribute, replacement)

    def _tick(self) -> None:
        while not self._stop.wait(REDRAW_S):
            self.draw()


class _AboveBar:
    """A text stream that clears the bar before writing and redraws it after a full line."""

    def __init__(self, target: IO[str], bar: _LiveBar):
        self._target = target
        self._bar = bar

    def write(self, text: str) -> int:
        with self._bar.lock:
            self._bar.clear()
            written = self._target.write(text)
            self._target.flush()
            self._bar.held = bool(text) and not text.endswith("\n")
            self._bar.draw()
            return written

    def __getattr__(self, name: str) -> Any:  # flush, fileno, isatty, encoding, ...
        return getattr(self._target, name)


def _stream_handlers() -> list[logging.StreamHandler[Any]]:
    known = list(logging.Logger.manager.loggerDict.values())  # a copy: other threads may add loggers
    loggers = [logging.getLogger(), *(item for item in known if isinstance(item, logging.Logger))]
    return [h for lg in loggers for h in lg.handlers
            if isinstance(h, logging.StreamHandler) and not isinstance(h, logging.FileHandler)]


def _width(stream: IO[str]) -> int:
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError, AttributeError):
        return 80
