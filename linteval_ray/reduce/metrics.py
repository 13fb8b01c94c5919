"""Corpus-level metrics over result rows, exactly as the dataset card defines them.

All ratios are ratios of sums over the passing rows (never means of per-sample
ratios): Pass@1 = passed / n; Reduction@P = Σ(in − out) / Σ in; New@P = Σ new / Σ in;
ΔLine@P = Σ lines changed / n_passed; LinePerFix@P = Σ lines changed / Σ fixed with
fixed = max(0, in − out + new). Rows whose input or problem is broken
(``invalid_input``, ``invalid_problem``) are dataset defects, not model failures:
they are counted under ``excluded`` and left out of ``n``.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

from pydantic import BaseModel

from linteval_ray.reduce.passk import pass_at_k
from linteval_ray.schema import LANGUAGES, ResultRow, Status

EXCLUDED_STATUSES = {Status.INVALID_INPUT, Status.INVALID_PROBLEM}


class GroupMetrics(BaseModel):
    n: int
    n_passed: int
    pass_at_1: float | None
    reduction_at_p: float | None
    new_at_p: float | None
    delta_line_at_p: float | None
    line_per_fix_at_p: float | None


class CategoryMetrics(BaseModel):
    alerts_in: int
    alerts_out: int
    reduction_at_p: float | None


class RunMetrics(BaseModel):
    overall: GroupMetrics
    by_language: dict[str, GroupMetrics]
    by_category: dict[str, CategoryMetrics]
    pass_at_k: dict[str, float]
    statuses: dict[str, int]
    verdicts: dict[str, int]
    excluded: int
    n_samples: int
    draws: int


def _ratio(num: float, den: float) -> float | None:
    return num / den if den else None


def group_metrics(rows: Sequence[ResultRow]) -> GroupMetrics:
    passed = [r for r in rows if r.pass_at_1 and r.metrics is not None]
    alerts_in = sum(r.metrics.original_total_messages for r in passed)
    alerts_out = sum(r.metrics.revised_total_messages for r in passed)
    new = sum(r.metrics.new_messages_count for r in passed)
    changed = sum(r.metrics.added_lines + r.metrics.deleted_lines for r in passed)
    fixed = sum(
        max(0, m.original_total_messages - m.revised_total_messages + m.new_messages_count)
        for m in (r.metrics for r in passed)
    )
    return GroupMetrics(
        n=len(rows),
        n_passed=len(passed),
        pass_at_1=_ratio(len(passed), len(rows)),
        reduction_at_p=_ratio(alerts_in - alerts_out, alerts_in),
        new_at_p=_ratio(new, alerts_in),
        delta_line_at_p=_ratio(changed, len(passed)),
        line_per_fix_at_p=_ratio(changed, fixed),
    )


def category_metrics(rows: Sequence[ResultRow]) -> dict[str, CategoryMetrics]:
    sums: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        if row.pass_at_1 and row.metrics is not None:
            for count in row.metrics.category_counts:
                sums[count.category][0] += count.original
                sums[count.category][1] += count.revised
    return {
        name: CategoryMetrics(alerts_in=a, alerts_out=b, reduction_at_p=_ratio(a - b, a))
        for name, (a, b) in sorted(sums.items())
    }


def pass_at_ks(rows: Sequence[ResultRow]) -> tuple[dict[str, float], int]:
    """Unbiased pass@k for every k up to the smallest draw count of any sample."""
    by_sample: dict[str, list[bool]] = defaultdict(list)
    for row in rows:
        by_sample[row.sample_id].append(row.pass_at_1)
    if not by_sample:
        return {}, 0
    draws = min(len(v) for v in by_sample.values())
    result = {}
    for k in range(1, draws + 1):
        scores = [pass_at_k(len(v), sum(v), k) for v in by_sample.values()]
        result[f"pass@{k}"] = sum(scores) / len(scores)
    return result, draws


def compute(rows: Iterable[ResultRow]) -> RunMetrics:
    all_rows = list(rows)
    scored = [r for r in all_rows if r.status not in EXCLUDED_STATUSES]
    languages = [*LANGUAGES, *sorted({r.language for r in scored if r.language} - set(LANGUAGES))]
    by_language = {
        lang: group_metrics([r for r in scored if r.language == lang])
        for lang in languages
        if any(r.language == lang for r in scored)
    }
    ks, draws = pass_at_ks(scored)
    return RunMetrics(
        overall=group_metrics(scored),
        by_language=by_language,
        by_category=category_metrics(scored),
        pass_at_k=ks,
        statuses=dict(Counter(str(r.status) for r in all_rows)),
        verdicts=dict(Counter(str(r.verdict) for r in scored if r.verdict is not None)),
        excluded=len(all_rows) - len(scored),
        n_samples=len({r.sample_id for r in scored}),
        draws=draws,
    )
