"""Suppression directives as edits: what every language's suppression finder builds on.

A language's finder (``linteval_ray.languages.<lang>.suppressions``) returns each directive
its linter honours as a ``Suppression``: its form, its line, and the edits that disarm it
without moving anything else (same lines; same columns after each edit). ``suppressions.py``
applies them. This module imports nothing of the project.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict


class Neutralized(BaseModel):
    """``code`` with every inline suppression inert, and how many directives were found."""

    model_config = ConfigDict(frozen=True)

    code: str
    count: int


class Edit(NamedTuple):
    """Replace ``code[start:end]`` by ``text`` (same lines; same columns after it)."""

    start: int
    end: int
    text: str


class Suppression(NamedTuple):
    """One suppression directive: its form, its 1-based line, and the edits that disarm it."""

    form: str
    line: int
    edits: tuple[Edit, ...]


@dataclass(frozen=True, slots=True)
class SuppressionRules:
    """How one language's code tells its linter to look away."""

    find: Callable[[str], list[Suppression]]  # every directive of a code, in any order
    # A word the linter honours anywhere in the text (not only in comments) and its inert spelling
    # of the same length: when an original holds none, a revision's every one is disarmed too.
    raw_word: tuple[str, str] | None = None


def apply_edits(code: str, edits: list[Edit]) -> str:
    """``code`` with ``edits`` applied. An edit inside an earlier, wider one is dropped
    (a NOLINT comment inside a blanked pragma)."""
    parts: list[str] = []
    position = 0
    for edit in sorted(edits, key=lambda e: (e.start, -e.end)):
        if edit.start < position:
            continue
        parts += [code[position:edit.start], edit.text]
        position = edit.end
    parts.append(code[position:])
    return "".join(parts)


def blank(text: str, *, utf8: bool) -> str:
    """``text`` as spaces, keeping line breaks and line continuations (backslash-newline).

    With ``utf8`` each character becomes as many spaces as its UTF-8 bytes, so byte
    columns after it stay (clang-tidy reports byte columns)."""
    continuations = {match.start() for match in _CONTINUATION.finditer(text)}
    return "".join(char if char in "\r\n" or index in continuations
                   else " " * (len(char.encode("utf-8", "surrogatepass")) if utf8 else 1)
                   for index, char in enumerate(text))


_CONTINUATION = re.compile(r"\\(?=[ \t]*[\r\n])")


def line_of(code: str, offset: int) -> int:
    return code.count("\n", 0, offset) + 1


def mark(start: int, old: str, new: str) -> Edit:
    """Overwrite the ``old`` text found at ``start`` by ``new`` (same length)."""
    assert len(old) == len(new)
    return Edit(start, start + len(old), new)


# ---------------------------------------------------------------------------------------
# A lexer for the C family: enough to tell comments and literals from code.
# ---------------------------------------------------------------------------------------

NEWLINE = r"\r\n|\r|\n"


class Token(NamedTuple):
    """One lexeme: kind is ``newline``, ``comment``, ``string``, ``word`` or ``punct``."""

    kind: str
    start: int
    end: int


def lex(code: str, lexeme: re.Pattern[str]) -> list[Token]:
    """The lexemes of ``code`` by ``lexeme``, a pattern of named groups ``newline``, ``skip``
    (dropped), ``comment``, ``string``, ``word`` and ``punct`` (which must take any character).

    A language's pattern leaves a literal open at the end of its line to a lone ``punct`` (the
    rest of the line is lexed on), so one stray quote cannot hide the comments after it."""
    tokens: list[Token] = []
    position = 0
    while position < len(code):
        match = lexeme.match(code, position)
        assert match is not None and match.lastgroup is not None  # the punct branch takes any char
        if match.lastgroup != "skip":
            tokens.append(Token(match.lastgroup, match.start(), match.end()))
        position = match.end()
    return tokens


def token_text(code: str, token: Token) -> str:
    return code[token.start:token.end]
