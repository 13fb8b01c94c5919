"""The audit: a sampled share of revisions judged in boxes of both builders.

Every test runs in a box of its own. As root the box server clones them (``sandbox/box_server.c``);
bubblewrap builds the same boxes from the same layout, one exec a box, and is the reference. The
audit is the box server's canary in production: ``validation.audit_fraction`` of revisions (chosen
by a hash of the row id: the same rows in every run and on every worker) are judged in the server's
boxes and again in bubblewrap's; the reference judgement is the one recorded, a disagreement
(verdict, test counts, per-test verdicts or first failing test) is logged, and the counts reach
``manifest.json`` (``audit``) through each validation actor's stats file.
"""

from __future__ import annotations

import hashlib

from pydantic import BaseModel, Field

DISAGREEMENTS_KEPT = 50  # row ids of disagreeing revisions an actor reports (the count has them all)


def audited(row_id: str, fraction: float) -> bool:
    """Whether the revision of ``row_id`` is among the ``fraction`` of revisions judged by both paths."""
    if fraction <= 0:
        return False
    position = int.from_bytes(hashlib.sha256(f"audit:{row_id}".encode()).digest()[:8], "big") / 2**64
    return position < fraction


class AuditStats(BaseModel):
    """A validation actor's audit so far: revisions judged by both paths, and how many disagreed."""

    audited: int = 0
    agreed: int = 0
    disagreed: int = 0
    disagreeing_rows: list[str] = Field(default_factory=list, description=f"at most {DISAGREEMENTS_KEPT}")

    def count(self, row_id: str, agreed: bool) -> None:
        self.audited += 1
        if agreed:
            self.agreed += 1
            return
        self.disagreed += 1
        if len(self.disagreeing_rows) < DISAGREEMENTS_KEPT:
            self.disagreeing_rows.append(row_id)

    def since(self, earlier: AuditStats) -> AuditStats:
        """What was counted after ``earlier`` (a copy taken of these same stats before)."""
        return AuditStats(audited=self.audited - earlier.audited, agreed=self.agreed - earlier.agreed,
                          disagreed=self.disagreed - earlier.disagreed,
                          disagreeing_rows=self.disagreeing_rows[len(earlier.disagreeing_rows):])

    def add(self, other: AuditStats) -> None:
        self.audited += other.audited
        self.agreed += other.agreed
        self.disagreed += other.disagreed
        room = DISAGREEMENTS_KEPT - len(self.disagreeing_rows)
        self.disagreeing_rows += other.disagreeing_rows[:max(room, 0)]
