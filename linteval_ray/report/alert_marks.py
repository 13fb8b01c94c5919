"""Which of a row's alerts a revision fixed, kept or added: counted as the metrics count them
(a multiset intersection of ``message_identity``), then paired so a kept alert points at its line
in the revision."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol


class Located(Protocol):
    """Where an alert is and what it says: a ``LintMessage``, or an ``AlertKey`` of a row's alert."""

    @property
    def line(self) -> int: ...
    @property
    def column(self) -> int: ...
    @property
    def message_identity(self) -> str: ...


class AlertKey(NamedTuple):
    line: int
    column: int
    message_identity: str


def located(messages: Sequence[dict[str, Any]]) -> list[AlertKey]:
    """The ``AlertKey`` of each alert of a row (``LintMessage`` fields as plain values)."""
    return [AlertKey(m["line"], m["column"], m["message_identity"]) for m in messages]


def alert_marks(
    original: Sequence[Located], revised: Sequence[Located]
) -> tuple[list[str], list[str], dict[int, int]]:
    """Each original alert ``fixed`` or ``remaining``, each revised one ``remaining`` or ``new``.

    As the metrics count (multiset intersection of ``message_identity``): for an identity found
    a times in the original and b times in the revision, min(a, b) remain. The k-th occurrences
    (in line order) are paired, so a remaining alert can point at its line in the revision; the
    third value maps original index -> revised line of the pair."""
    original_marks = ["fixed"] * len(original)
    revised_marks = ["new"] * len(revised)
    pairs: dict[int, int] = {}
    if not revised:  # nothing to pair (no revision, or one without alerts): skip sorting the original's
        return original_marks, revised_marks, pairs
    revised_by_identity = _indices_by_identity(revised)
    for identity, original_indices in _indices_by_identity(original).items():
        for i, j in zip(original_indices, revised_by_identity.get(identity, []), strict=False):  # min(a, b) pairs
            original_marks[i] = revised_marks[j] = "remaining"
            pairs[i] = revised[j].line
    return original_marks, revised_marks, pairs


def _indices_by_identity(messages: Sequence[Located]) -> dict[str, list[int]]:
    by_identity: dict[str, list[int]] = defaultdict(list)
    for i in sorted(range(len(messages)), key=lambda i: (messages[i].line, messages[i].column)):
        by_identity[messages[i].message_identity].append(i)
    return by_identity
