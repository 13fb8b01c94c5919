"""What a failure was: the result row's ``first_failure`` from the judged tests.

The first test in test order that did not pass (the one that decides the verdict) is
described by its position, the generator command line that made its input, excerpts of
its input, of the expected answer (the original's output) and of the revision's output,
the checker's message or the program's stderr, how the run ended, its time and memory.

Program output (and a checker message, which quotes it) is hostile text: ``safe_text``
makes it safe to store and to show in a terminal or a page: it cannot move the cursor,
clear a screen, reorder text (bidi controls) or hide characters. HTML escaping is the
site's job, not this module's.
"""

from __future__ import annotations

import signal
from pathlib import Path
from typing import TYPE_CHECKING

from linteval_ray.schema.result import EXCERPT_CAP, FirstFailure, Verdict
from linteval_ray.validate.judge.records import TestRecord
from linteval_ray.validate.sanitize import escape_char

if TYPE_CHECKING:
    from linteval_ray.validate.judge.problem import PreparedProblem

# Enough bytes for EXCERPT_CAP characters whatever the UTF-8 (at most 4 bytes each).
HEAD_BYTES = 4 * EXCERPT_CAP + 3


def safe_text(text: str, cap: int = EXCERPT_CAP) -> tuple[str, bool]:
    """``text`` escaped (see ``FirstFailure``) and cut to ``cap`` characters; True if it was cut.
    An escape is never split: a cut falls between characters."""
    pieces: list[str] = []
    used = 0
    for char in text:
        piece = _escaped(char)
        if used + len(piece) > cap:
            return "".join(pieces), True
        pieces.append(piece)
        used += len(piece)
    return "".join(pieces), False


def excerpt(head: bytes, more: bool) -> tuple[str, bool]:
    """The safe excerpt of bytes whose first ``HEAD_BYTES`` are ``head`` (``more``: there is more)."""
    text, cut = safe_text(head.decode("utf-8", "surrogateescape"))
    return text, cut or more


def file_excerpt(path: Path) -> tuple[str, bool]:
    with path.open("rb") as file:
        head = file.read(HEAD_BYTES)
        more = file.read(1) != b""
    return excerpt(head, more)


def _escaped(char: str) -> str:
    """``escape_char``, plus the two rules that make an excerpt unambiguous: a backslash is
    doubled and a byte that is not UTF-8 (surrogateescape) shows as ``\\xNN``."""
    if char == "\\":
        return "\\\\"
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    return escape_char(char)


def ended(verdict: Verdict | None, exit_code: int | None, sig: int | None) -> str:
    """How a test run ended, in words."""
    if verdict is None:
        return "not run (after a time limit)"
    if verdict == Verdict.TIME_LIMIT:
        return "killed at the time limit"
    if verdict == Verdict.OUTPUT_LIMIT:
        return "killed at the output limit"
    if sig is not None:
        try:
            return f"signal {sig} ({signal.Signals(sig).name})"
        except ValueError:
            return f"signal {sig}"
    return f"exit {exit_code}"


def first_failure(records: list[TestRecord], problem: PreparedProblem) -> FirstFailure | None:
    """The first judged test that did not pass, described; None when every test passed."""
    for index, record in enumerate(records):
        if record.verdict != Verdict.PASSED:
            return describe(index, record, problem)
    return None


def describe(index: int, record: TestRecord, problem: PreparedProblem) -> FirstFailure:
    origin = problem.tests.origin(record.name)
    given, given_cut = file_excerpt(problem.tests.input_path(record.name))
    expected, expected_cut = file_excerpt(problem.reference.answer_path(record.name))
    output, output_cut = excerpt(record.output_head, record.output_more) if record.verdict else (None, False)
    return FirstFailure(
        test_index=index, test_name=record.name, verdict=str(record.verdict or "skipped"),
        generator_line=origin[0] if origin else None, generator_command=safe_text(origin[1])[0] if origin else None,
        input_excerpt=given, input_truncated=given_cut,
        expected_excerpt=expected, expected_truncated=expected_cut,
        output_excerpt=output, output_truncated=output_cut,
        message=safe_text(record.detail)[0], ended=ended(record.verdict, record.exit_code, record.signal),
        evidence=record.evidence or None,
        exit_code=record.exit_code, signal=record.signal,
        wall_s=record.wall_s, cpu_s=record.cpu_s, time_limit_s=record.time_limit_s, memory_mb=record.peak_rss_mb,
    )
