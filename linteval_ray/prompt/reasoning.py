"""Where a response's reasoning ends and its answer begins: the one rule scoring, token counts and
the results browser share.

Everything up to and including the LAST ``</think>`` (any case) is reasoning, whatever else it
holds: text between two think blocks is a draft, not the answer. This also covers chat templates
that put the opening ``<think>`` in the prompt (a lone ``</think>``). The whitespace-only lines
right after that ``</think>`` belong to neither. A ``<think>`` that never closes means the model
never reached its answer: all of it is reasoning and there is no answer.
"""

from __future__ import annotations

import re
from typing import NamedTuple

_THINK_OPEN = re.compile(r"<think>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think>", re.IGNORECASE)
_LEADING_BLANK_LINES = re.compile(r"\A(?:[^\S\n]*\n)+")
_OUTER_OPEN = re.compile(r"\A\s*<think>", re.IGNORECASE)
_OUTER_CLOSE = re.compile(r"</think>\s*\Z", re.IGNORECASE)


class Reasoned(NamedTuple):
    """A response cut in two: ``reasoning`` as written (tags included; None without any) and the
    ``answer`` scoring extracts from (None when a ``<think>`` never closed)."""

    reasoning: str | None
    answer: str | None


def split_reasoning(response: str) -> Reasoned:
    """``response`` cut at the end of its last ``</think>`` (see the module docstring)."""
    closes = list(_THINK_CLOSE.finditer(response))
    if closes:
        end = closes[-1].end()
        return Reasoned(response[:end], _LEADING_BLANK_LINES.sub("", response[end:]))
    if _THINK_OPEN.search(response):
        return Reasoned(response, None)
    return Reasoned(None, response)


def reasoning_text(reasoning: str) -> str:
    """The reasoning as a reader wants it: without the outermost ``<think>`` and ``</think>`` (any
    inner ones stay, so text between two blocks is visibly there) and the blank lines around it."""
    return _OUTER_CLOSE.sub("", _OUTER_OPEN.sub("", reasoning)).strip("\n")
