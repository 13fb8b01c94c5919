"""``MetricRow``: the part of a result row the metrics read, as small tuples.

The reduction walks the result table's columns into these (a few hundred bytes a row instead of
a ``ResultRow`` model with its messages), and every metric is computed over them. A model (a test's
made-up rows) goes through the same dict, so both give the same numbers.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from linteval_ray.schema import ResultRow, Status, Verdict
from linteval_ray.schema.table import ResultTable


class CategoryAlerts(NamedTuple):
    category: str
    original: int
    revised: int


class AlertCounts(NamedTuple):
    """A row's ``SampleMetrics``, the fields the corpus metrics sum."""

    original_total_messages: int
    revised_total_messages: int
    new_messages_count: int
    added_lines: int
    deleted_lines: int
    category_counts: tuple[CategoryAlerts, ...]


class Agreement(NamedTuple):
    recorded: int
    relinted: int
    matched: int

    @property
    def exact(self) -> bool:
        return self.recorded == self.relinted == self.matched


class MetricRow(NamedTuple):
    row_id: str
    sample_id: str
    problem_id: str | None
    language: str | None
    status: Status
    verdict: Verdict | None
    pass_at_1: bool
    error: str | None
    validation_error: str | None
    extraction_ok: bool | None
    finish_reason: str | None
    generated_tokens: int | None
    reasoning_tokens: int | None
    generation_s: float | None
    suppressions_added: int | None
    lint_error: bool
    metrics: AlertCounts | None
    lint_agreement: Agreement | None


SCALARS = ("row_id", "sample_id", "problem_id", "language", "pass_at_1", "error", "validation_error", "extraction_ok",
           "finish_reason", "generated_tokens", "reasoning_tokens", "generation_s", "suppressions_added")
COLUMNS = (*SCALARS, "status", "verdict", "lint_error", "metrics", "lint_agreement")


def metric_row(d: dict[str, Any]) -> MetricRow:
    """From a row's ``COLUMNS`` as an Arrow table or ``model_dump`` gives them."""
    m, a = d["metrics"], d["lint_agreement"]
    counts = None if m is None else AlertCounts(
        m["original_total_messages"], m["revised_total_messages"], m["new_messages_count"], m["added_lines"],
        m["deleted_lines"], tuple(CategoryAlerts(c["category"], c["original"], c["revised"])
                                  for c in m["category_counts"]))
    return MetricRow(
        **{name: d[name] for name in SCALARS},
        status=Status(d["status"]),
        verdict=None if d["verdict"] is None else Verdict(d["verdict"]),
        lint_error=d["lint_error"] is not None,
        metrics=counts,
        lint_agreement=None if a is None else Agreement(a["recorded"], a["relinted"], a["matched"]),
    )


def metric_rows(rows: ResultTable | Iterable[ResultRow | MetricRow]) -> Iterator[MetricRow]:
    """The metric rows of a result table, or of models (made-up rows, in tests and ``compute``)."""
    if isinstance(rows, ResultTable):
        yield from (metric_row(d) for d in rows.dicts(COLUMNS))
        return
    for row in rows:
        yield row if isinstance(row, MetricRow) else metric_row(row.model_dump(include=set(COLUMNS)))
