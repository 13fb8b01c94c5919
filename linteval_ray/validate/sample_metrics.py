"""Per-sample metrics, as the dataset card defines them.

Original and revised alerts are matched as multisets of ``message_identity``
(``check_name::message_text``): line numbers move when code is edited, so an
alert "remains" when the same check says the same thing anywhere in the file.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Callable, Sequence

from linteval_ray.schema import CategoryCount, LintAgreement, LintMessage, SampleMetrics


def remaining_count(original: Sequence[LintMessage], revised: Sequence[LintMessage]) -> int:
    """Alerts of the original still present in the revision (multiset intersection)."""
    before = Counter(m.message_identity for m in original)
    after = Counter(m.message_identity for m in revised)
    return sum((before & after).values())


def lint_agreement(recorded: Sequence[LintMessage], relinted: Sequence[LintMessage]) -> LintAgreement:
    """The row's recorded original alerts against our re-lint of the same program."""
    return LintAgreement(recorded=len(recorded), relinted=len(relinted), matched=remaining_count(recorded, relinted))


def category_mrr(original: Sequence[LintMessage], revised: Sequence[LintMessage]) -> dict[str, float]:
    """(in - out) / in per category of the original's alerts, as the dataset rows' ``category_mrr``
    (keys are the messages' ``category``, e.g. modernize, readability, bugprone, other)."""
    alerts_in = Counter(m.category for m in original)
    alerts_out = Counter(m.category for m in revised)
    return {name: (count - alerts_out[name]) / count for name, count in sorted(alerts_in.items())}


def line_changes(original: str, revised: str) -> tuple[int, int]:
    """(added, deleted) lines of a line diff; a changed line counts once each way."""
    matcher = difflib.SequenceMatcher(None, original.splitlines(), revised.splitlines(), autojunk=False)
    added = deleted = 0
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            deleted += i2 - i1
            added += j2 - j1
    return added, deleted


def category_counts(
    original: Sequence[LintMessage],
    revised: Sequence[LintMessage],
    category_of: Callable[[str], str],
) -> list[CategoryCount]:
    """Counts per rolled-up category (``category_of`` maps a message's family to it)."""
    names = sorted({category_of(m.category) for m in [*original, *revised]})
    counts = []
    for name in names:
        orig = [m for m in original if category_of(m.category) == name]
        rev = [m for m in revised if category_of(m.category) == name]
        remaining = remaining_count(orig, rev)
        counts.append(
            CategoryCount(
                category=name,
                original=len(orig),
                revised=len(rev),
                remaining=remaining,
                new=len(rev) - remaining,
            )
        )
    return counts


def sample_metrics(
    original_code: str,
    revised_code: str,
    original: Sequence[LintMessage],
    revised: Sequence[LintMessage],
    category_of: Callable[[str], str],
) -> SampleMetrics:
    remaining = remaining_count(original, revised)
    added, deleted = line_changes(original_code, revised_code)
    original_loc = len(original_code.splitlines())
    n_in, n_out = len(original), len(revised)
    return SampleMetrics(
        original_total_messages=n_in,
        revised_total_messages=n_out,
        old_messages_remaining=remaining,
        new_messages_count=n_out - remaining,
        mrr_at_pass=(n_in - n_out) / n_in if n_in else None,
        new_msg_per_sample_at_pass=n_out - remaining,
        line_churn_at_pass=(added + deleted) / original_loc if original_loc else None,
        original_loc=original_loc,
        revised_loc=len(revised_code.splitlines()),
        added_lines=added,
        deleted_lines=deleted,
        category_mrr=category_mrr(original, revised),
        category_counts=category_counts(original, revised, category_of),
    )
