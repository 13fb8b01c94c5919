"""Two runs on the same samples: each headline metric in both, their difference and its paired
bootstrap 95 % interval. ``compare`` and the leaderboard read these numbers; they only format them.

The unit is the sample (its draws summed), as in ``metrics.json``: only rows scored in both runs
count, so a sample one run could not evaluate never tilts the difference.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from linteval_ray.reduce.intervals import paired_bootstrap_delta
from linteval_ray.reduce.metrics import EXCLUDED_STATUSES
from linteval_ray.reduce.ratios import ratio_of_sums
from linteval_ray.schema import ResultRow


class SampleParts(NamedTuple):
    """One sample's numerators and denominators (draws summed), the unit the bootstrap resamples."""

    passed: float
    draws: float
    reduced: float  # Σ(in − out) over passing draws
    alerts_in: float  # Σ in over passing draws
    new: float
    lines_changed: float


class ComparedMetric(NamedTuple):
    label: str
    key: str  # its name in metrics.json
    numerator: str  # a SampleParts field
    denominator: str
    percent: bool  # shown as a percentage


COMPARED_METRICS = (
    ComparedMetric("Pass@1", "pass_at_1", "passed", "draws", True),
    ComparedMetric("Reduction@P", "reduction_at_p", "reduced", "alerts_in", True),
    ComparedMetric("New@P", "new_at_p", "new", "alerts_in", True),
    ComparedMetric("ΔLine@P", "delta_line_at_p", "lines_changed", "passed", False),
)


class PairedDelta(NamedTuple):
    """One metric in runs A and B over the same samples, B − A, and the interval of B − A."""

    metric: ComparedMetric
    a: float | None
    b: float | None
    delta: float | None
    ci: list[float] | None

    @property
    def reading(self) -> str:
        if self.ci is None:
            return "-"
        return "B higher" if self.ci[0] > 0 else "B lower" if self.ci[1] < 0 else "no clear difference"


def scored_rows(rows: Iterable[ResultRow]) -> dict[str, ResultRow]:
    """Rows in the metrics' ``n`` (invalid input and evaluator faults excluded), by row_id."""
    return {row.row_id: row for row in rows if row.status not in EXCLUDED_STATUSES}


def sample_parts(rows: Iterable[ResultRow]) -> dict[str, SampleParts]:
    sums: dict[str, list[float]] = defaultdict(lambda: [0.0] * len(SampleParts._fields))
    for row in rows:
        part = sums[row.sample_id]
        part[1] += 1
        if row.pass_at_1 and row.metrics is not None:
            m = row.metrics
            part[0] += 1
            part[2] += m.original_total_messages - m.revised_total_messages
            part[3] += m.original_total_messages
            part[4] += m.new_messages_count
            part[5] += m.added_lines + m.deleted_lines
    return {sample_id: SampleParts(*values) for sample_id, values in sums.items()}


class SharedSamples(NamedTuple):
    """Two runs restricted to the rows both scored: the unit the paired bootstrap resamples."""

    rows: list[str]  # the row ids scored in both
    a: list[SampleParts]  # per shared sample, in the same order for both
    b: list[SampleParts]


def shared_samples(rows_a: Mapping[str, ResultRow], rows_b: Mapping[str, ResultRow]) -> SharedSamples:
    """``scored_rows`` of two runs -> their shared rows and both runs' parts per shared sample."""
    shared = [row_id for row_id in rows_a if row_id in rows_b]
    parts_a, parts_b = sample_parts(rows_a[r] for r in shared), sample_parts(rows_b[r] for r in shared)
    return SharedSamples(shared, list(parts_a.values()), [parts_b[s] for s in parts_a])


def paired_deltas(a: Sequence[SampleParts], b: Sequence[SampleParts]) -> list[PairedDelta]:
    """Every ``COMPARED_METRICS`` entry for A and B, given the same samples in the same order."""
    deltas = []
    for metric in COMPARED_METRICS:
        parts_a = ([getattr(p, metric.numerator) for p in a], [getattr(p, metric.denominator) for p in a])
        parts_b = ([getattr(p, metric.numerator) for p in b], [getattr(p, metric.denominator) for p in b])
        value_a, value_b = ratio_of_sums(*parts_a), ratio_of_sums(*parts_b)
        delta = None if value_a is None or value_b is None else value_b - value_a
        deltas.append(PairedDelta(metric, value_a, value_b, delta, paired_bootstrap_delta(parts_a, parts_b)))
    return deltas
