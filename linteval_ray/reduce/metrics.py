"""Corpus-level metrics over result rows, exactly as the dataset card defines them.

All ratios are ratios of sums over the passing rows (never means of per-sample
ratios): Pass@1 = passed / n; Reduction@P = Σ(in − out) / Σ in; New@P = Σ new / Σ in;
ΔLine@P = Σ lines changed / n_passed; LinePerFix@P = Σ lines changed / Σ fixed with
fixed = max(0, in − out + new). A row whose linter failed (``lint_error``) counts for Pass@1 as
judged, but its alerts are unknown: it is left out of the alert and line metrics, and counted.

What ``n`` holds, as the card defines Pass@1 ("the fraction of samples whose revision passes
every test"): every evaluated sample, including ``invalid_problem`` rows (a problem whose
tools or original are broken in our environment is still a sample of the benchmark; they count
as not passed and are listed under ``invalid_problems`` with a loud warning, because they are
environment drift to fix, not noise to drop). Outside ``n``: ``invalid_input`` rows (not
samples: the row itself is malformed) and ``infra_error`` rows (our fault, never the model's:
rerun to retry them); both are counted under ``excluded``.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel, Field

from linteval_ray.config import HealthConfig
from linteval_ray.languages.registry import language_names
from linteval_ray.reduce.agreement import LintAgreementMetrics, lint_agreement_metrics
from linteval_ray.reduce.health import GenerationHealth, generation_health
from linteval_ray.reduce.intervals import bootstrap_ratio, wilson
from linteval_ray.reduce.passk import pass_at_k
from linteval_ray.reduce.ratios import ratio
from linteval_ray.reduce.rows import AlertCounts, MetricRow, metric_rows
from linteval_ray.schema import ResultRow, Status
from linteval_ray.schema.table import ResultTable
from linteval_ray.schema.task import LINTEVAL_TASK

EXCLUDED_STATUSES = {Status.INVALID_INPUT, Status.INFRA_ERROR}
# Below this share of exactly agreeing originals a language's alert metrics drift from the paper's.
AGREEMENT_WARNING_THRESHOLD = 0.95


class GroupMetrics(BaseModel):
    n: int
    n_passed: int
    pass_at_1: float | None
    pass_at_1_ci: list[float] | None = Field(default=None, description="95 % Wilson interval [low, high]")
    reduction_at_p: float | None
    reduction_at_p_ci: list[float] | None = Field(
        default=None, description="95 % bootstrap interval over samples [low, high]")
    new_at_p: float | None
    delta_line_at_p: float | None
    line_per_fix_at_p: float | None
    lint_errors: int = Field(default=0, description="rows whose linter failed: judged, outside the alert metrics")
    unchanged: float | None = Field(
        default=None, description="share of revisions identical to their original line for line (line endings and "
        "a final newline aside), over the evaluated rows whose revision was linted: passing or not")


class CategoryMetrics(BaseModel):
    alerts_in: int
    alerts_out: int
    reduction_at_p: float | None


class SuppressionMetrics(BaseModel):
    """Inline suppressions revisions added (they hide no alert unless validation.lint_as_written)."""

    rows_with_added: int = 0
    added: int = 0


class RunMetrics(BaseModel):
    overall: GroupMetrics
    by_language: dict[str, GroupMetrics]
    by_category: dict[str, CategoryMetrics]
    pass_at_k: dict[str, float]
    statuses: dict[str, int]
    verdicts: dict[str, int]
    excluded: int = Field(description="rows outside n: invalid_input and infra_error")
    pass_at_1_infra_as_failed: float | None = Field(
        default=None, description="Pass@1 with the infra_error rows counted in n as not passed: what leaving them "
        "out is worth (equal to overall.pass_at_1 without such rows)")
    invalid_problems: list[str] = Field(default_factory=list, description="problems counted as not passed")
    # Defaults keep metrics.json files of earlier versions readable (compare, report).
    lint_agreement: LintAgreementMetrics = Field(default_factory=LintAgreementMetrics)
    suppressions: SuppressionMetrics = Field(default_factory=SuppressionMetrics)
    generation: GenerationHealth = Field(default_factory=GenerationHealth)
    n_samples: int
    draws: int
    task: str = Field(default=LINTEVAL_TASK, description="the task of the rows (linteval_ray/tasks/)")
    task_metrics: dict[str, Any] | None = Field(
        default=None, description="the task's own section (its Task.metrics), e.g. CodeContests-O's pass@k intervals")

    def headline(self) -> str:
        """The summary line of a report: samples, draws, Pass@1, and what the rows outside n are worth."""
        line = f"{self.n_samples} samples, {self.draws} draw(s) each; Pass@1 {_pct(self.overall.pass_at_1, 1)}"
        infra = self.statuses.get(Status.INFRA_ERROR, 0)
        if infra:
            line += (f" ({_pct(self.pass_at_1_infra_as_failed, 1)} with its {infra} infra_error row(s) counted "
                     "as failures)")
        return f"{line}; {self.excluded} rows not scored (invalid input or evaluator fault)."

    def warnings(self) -> list[str]:
        """What a user must not miss when reading these numbers."""
        notes = []
        if self.invalid_problems:
            notes.append(f"{len(self.invalid_problems)} problem(s) could not be judged here and count as not passed: "
                         f"{', '.join(self.invalid_problems[:20])}{' ...' if len(self.invalid_problems) > 20 else ''}")
        for language, agreement in self.lint_agreement.by_language.items():
            if agreement.exact_rate is not None and agreement.exact_rate < AGREEMENT_WARNING_THRESHOLD:
                notes.append(f"{language}: our re-lint agrees exactly with the recorded alerts on "
                             f"{agreement.exact_rate:.0%} of originals (recall {_pct(agreement.recall)}, "
                             f"precision {_pct(agreement.precision)}): alert metrics are not the paper's; "
                             "see `linteval-ray calibrate`")
        if self.overall.lint_errors:
            notes.append(f"{self.overall.lint_errors} row(s) had a linter failure (lint_error): judged, but left "
                         "out of Reduction@P, New@P, ΔLine@P and LinePerFix@P")
        notes += self.generation.warnings()
        if self.statuses.get(Status.INFRA_ERROR, 0):
            notes.append(f"{self.statuses[Status.INFRA_ERROR]} row(s) hit an evaluator fault (infra_error) and are "
                         "not scored: rerun the same command to retry them")
        return notes


def _pct(value: float | None, decimals: int = 0) -> str:
    return "-" if value is None else f"{value:.{decimals}%}"


def suppression_metrics(rows: Sequence[MetricRow]) -> SuppressionMetrics:
    added = [r.suppressions_added for r in rows if r.suppressions_added]
    return SuppressionMetrics(rows_with_added=len(added), added=sum(added))


def group_metrics(rows: Sequence[MetricRow]) -> GroupMetrics:
    n_passed = sum(r.pass_at_1 for r in rows)
    # alert and line metrics: the passing rows whose both sides were linted
    passed: list[AlertCounts] = [r.metrics for r in rows if r.pass_at_1 and r.metrics is not None]
    alerts_in = sum(m.original_total_messages for m in passed)
    alerts_out = sum(m.revised_total_messages for m in passed)
    new = sum(m.new_messages_count for m in passed)
    changed = sum(m.added_lines + m.deleted_lines for m in passed)
    fixed = sum(max(0, m.original_total_messages - m.revised_total_messages + m.new_messages_count) for m in passed)
    return GroupMetrics(
        n=len(rows),
        n_passed=n_passed,
        pass_at_1=ratio(n_passed, len(rows)),
        pass_at_1_ci=wilson(n_passed, len(rows)),
        reduction_at_p=ratio(alerts_in - alerts_out, alerts_in),
        reduction_at_p_ci=bootstrap_ratio(*reduction_parts(rows)),
        new_at_p=ratio(new, alerts_in),
        delta_line_at_p=ratio(changed, len(passed)),
        line_per_fix_at_p=ratio(changed, fixed),
        lint_errors=sum(r.lint_error for r in rows),
        unchanged=unchanged_share(rows),
    )


def unchanged_share(rows: Sequence[MetricRow]) -> float | None:
    """The share of revisions whose line diff against the original is empty (``line_changes``: the
    lines compared as written, so a changed indent or trailing space is a change; CRLF and a missing
    final newline are not, as they change no line a linter or a reader sees)."""
    revised = [r.metrics for r in rows if r.metrics is not None]
    return ratio(sum(m.added_lines + m.deleted_lines == 0 for m in revised), len(revised))


def reduction_parts(rows: Sequence[MetricRow]) -> tuple[list[float], list[float]]:
    """Per sample (draws summed): Σ(in − out) and Σ in over its passing rows — Reduction@P's
    numerator and denominator, the unit a bootstrap resamples."""
    parts: dict[str, list[float]] = {}
    for row in rows:
        numerator_denominator = parts.setdefault(row.sample_id, [0.0, 0.0])
        if row.pass_at_1 and row.metrics is not None:
            numerator_denominator[0] += row.metrics.original_total_messages - row.metrics.revised_total_messages
            numerator_denominator[1] += row.metrics.original_total_messages
    return [p[0] for p in parts.values()], [p[1] for p in parts.values()]


def category_metrics(rows: Sequence[MetricRow]) -> dict[str, CategoryMetrics]:
    sums: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        if row.pass_at_1 and row.metrics is not None:
            for count in row.metrics.category_counts:
                sums[count.category][0] += count.original
                sums[count.category][1] += count.revised
    return {
        name: CategoryMetrics(alerts_in=a, alerts_out=b, reduction_at_p=ratio(a - b, a))
        for name, (a, b) in sorted(sums.items())
    }


def pass_at_ks(rows: Sequence[MetricRow]) -> tuple[dict[str, float], int]:
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


def compute(rows: ResultTable | Iterable[ResultRow | MetricRow], health: HealthConfig | None = None) -> RunMetrics:
    all_rows = list(metric_rows(rows))
    scored = [r for r in all_rows if r.status not in EXCLUDED_STATUSES]
    known = language_names()  # the built-in languages in the dataset's order, then registered ones
    languages = [*known, *sorted({r.language for r in scored if r.language} - set(known))]
    by_language = {
        lang: group_metrics([r for r in scored if r.language == lang])
        for lang in languages
        if any(r.language == lang for r in scored)
    }
    ks, draws = pass_at_ks(scored)
    infra = sum(r.status == Status.INFRA_ERROR for r in all_rows)
    overall = group_metrics(scored)
    return RunMetrics(
        overall=overall,
        pass_at_1_infra_as_failed=ratio(overall.n_passed, overall.n + infra),
        by_language=by_language,
        by_category=category_metrics(scored),
        pass_at_k=ks,
        statuses=dict(Counter(str(r.status) for r in all_rows)),
        verdicts=dict(Counter(str(r.verdict) for r in scored if r.verdict is not None)),
        excluded=len(all_rows) - len(scored),
        invalid_problems=sorted({r.problem_id or r.sample_id for r in scored if r.status == Status.INVALID_PROBLEM}),
        lint_agreement=lint_agreement_metrics(all_rows, languages),
        suppressions=suppression_metrics(scored),
        generation=generation_health(all_rows, health),
        n_samples=len({r.sample_id for r in scored}),
        draws=draws,
        task=next((r.task for r in all_rows if r.task), LINTEVAL_TASK),
    )
