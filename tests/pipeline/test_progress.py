"""Progress as a user sees it: a live bar on a real pseudo-terminal, periodic lines in a log."""

from __future__ import annotations

import fcntl
import io
import logging
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time
from pathlib import Path

import pytest

from linteval_ray.pipeline.progress import CLEAR_LINE, Progress

COLUMNS = 160
# A bar frame: "validate  67%|████████████████████          | 2/3 rows [0m05s<0m02s, 0.40 rows/s] passed 1 · ..."
FRAME = re.compile(r"validate +(\d+)%\|[ █▏▎▍▌▋▊▉]*\| (\d+)/(\d+) rows \[\d+m\d\ds<(?:\d+m\d\ds|\?), "
                   r"[\d.]+ rows/s\] passed (\d+) · failed (\d+) · errors (\d+)")


def _on_a_terminal(argv: list[str], timeout_s: float) -> tuple[int, str]:
    """Run ``argv`` with stdin, stdout and stderr on a new pseudo-terminal; its exit code and output."""
    pid, master = pty.fork()
    if pid == 0:  # the child: its standard streams are the terminal
        os.execv(argv[0], argv)
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 50, COLUMNS, 0, 0))
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout_s
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1.0)
            if not ready:
                continue
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(master)
        if time.monotonic() >= deadline:
            os.kill(pid, signal.SIGTERM)  # the CLI then stops the Ray it started
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.slow  # one real run: Ray, linters, the judge
def test_on_a_terminal_the_cli_draws_one_live_bar_and_ends_with_a_summary(tmp_path: Path) -> None:
    samples = ["lr02_py3_0", "lr03_py3_0", "lr02_py3_1"]  # passes, fails its tests, has no code
    argv = [sys.executable, "-m", "linteval_ray", "run", "--dataset", "bundled", "--output", str(tmp_path / "out"),
            "--set", "validation.pool.batch_size=1", "--set", "validation.pool.store_batch_size=1",
            *[arg for sample in samples for arg in ("--sample-id", sample)]]
    code, shown = _on_a_terminal(argv, timeout_s=900)
    assert code == 0, shown[-3000:]

    frames = [tuple(int(g) for g in m.groups()) for m in FRAME.finditer(shown)]
    assert frames, f"no bar drawn: {shown[-3000:]}"
    assert frames[0][1:3] == (0, 3) and frames[-1] == (100, 3, 3, 1, 2, 0)
    assert [f[1] for f in frames] == sorted(f[1] for f in frames), "done/total never goes back"
    # Redrawn as rows arrive (batch size 1), though two rows may reach the driver together.
    assert {0, 3} < {f[1] for f in frames}, "never redrawn between the first and the last row"
    # Redrawn in place (each frame starts by clearing the line), never wider than the terminal.
    assert shown.count(CLEAR_LINE + "validate ") == len(frames)
    assert all(len(m.group(0)) < COLUMNS for m in FRAME.finditer(shown))
    # The bar ends with the summary line, in place of the last frame; no periodic log lines.
    after = shown[shown.rindex(CLEAR_LINE + "validate"):]
    summary = re.search(r"\r\x1b\[K(validated 3/3 rows in \d+m\d\ds \([\d.]+ rows/s\): "
                        r"passed 1, failed 2, errors 0)\r?\n", after)
    assert summary, after[:2000]
    assert "validate " not in after[summary.end():]
    assert not re.search(r"validated \d+/\d+ rows \(", shown), "periodic lines are for logs, not a terminal"


def test_a_live_bar_on_a_pseudo_terminal_keeps_log_lines_above_it() -> None:
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 100, 0, 0))
    terminal = open(slave, "w", encoding="utf-8", closefd=True)  # noqa: SIM115 - closed below
    handler = logging.StreamHandler(terminal)
    logging.getLogger("linteval_ray.test").addHandler(handler)
    try:
        with Progress(total=4, stream=terminal) as progress:
            assert progress.live
            progress.update(["evaluated", "evaluated"], [True, False])
            logging.getLogger("linteval_ray.test").warning("a line from elsewhere")
            progress.update(["evaluated", "infra_error"], [True, False])
    finally:
        logging.getLogger("linteval_ray.test").removeHandler(handler)
        terminal.close()
    shown = _drain(master)
    os.close(master)

    assert CLEAR_LINE + "validate  50%|" in shown and "2/4 rows" in shown
    # The other line is written on a cleared line and the bar is drawn again after it.
    assert CLEAR_LINE + "a line from elsewhere\n" + CLEAR_LINE + "validate  50%" in shown.replace("\r\n", "\n")
    last = [m.groups() for m in FRAME.finditer(shown)][-1]
    assert last == ("100", "4", "4", "2", "1", "1")
    assert re.search(r"validated 4/4 rows in 0m0\ds \([\d.]+ rows/s\): passed 2, failed 1, errors 1 "
                     r"\(infra_error 1\)\r?\n$", shown)


def _drain(master: int) -> str:
    chunks = []
    while select.select([master], [], [], 0.2)[0]:
        try:
            chunks.append(os.read(master, 65536))
        except OSError:
            break
    return b"".join(chunks).decode()


def test_not_on_a_terminal_progress_is_periodic_log_lines(caplog: pytest.LogCaptureFixture) -> None:
    read, write = os.pipe()
    with (open(write, "w") as pipe, caplog.at_level(logging.INFO, logger="linteval_ray.progress"),
          Progress(total=3, every_s=0.0, stream=pipe) as progress):
        assert not progress.live
        progress.update(["evaluated"], [True])
        progress.update(["evaluated", "generation_error"], [False, False])
    with open(read) as drained:
        assert drained.read() == "", "nothing drawn on a non-terminal"
    lines = [r.getMessage() for r in caplog.records if r.name == "linteval_ray.progress"]
    assert len(lines) == 3  # one per update (every_s=0) and the final one
    assert re.fullmatch(r"validated 1/3 rows \([\d.]+/s, ETA \d+m\d\ds\); passed 1", lines[0])
    assert re.fullmatch(r"validated 3/3 rows \([\d.]+/s, ETA 0m00s\); passed 1; generation_error 1", lines[1])
    assert lines[2].startswith("validated 3/3 rows")


def test_periodic_lines_wait_every_s_between_them(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="linteval_ray.progress"):
        progress = Progress(total=100, every_s=3600.0, stream=io.StringIO())
        for _ in range(5):
            progress.update(["evaluated"], [True])
    lines = [r.getMessage() for r in caplog.records if r.name == "linteval_ray.progress"]
    assert lines == [lines[0]] and lines[0].startswith("validated 1/100 rows")
