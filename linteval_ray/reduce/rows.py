"""``MetricRow``: the part of a result row the metrics read, as small tuples.

The reduction walks the result table's columns into these, and every metric is computed over
them. A model (a test's made-up rows) goes through the same dict, so both give the same numbers.
A row keeps only what a metric reads, in the form it is read (whether an error is a prompt too
long, not the error; a validation error only where the health reads it), and its repeated strings
(problem, language, finish reason, categories, a sample's id across its draws) are one object
each: at 100k rows these tuples are most of the reduction's memory.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from linteval_ray.schema import ResultRow, Status, Verdict
from linteval_ray.schema.result import FinishReason
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
    sample_id: str
    problem_id: str | None
    language: str | None
    status: Status
    verdict: Verdict | None
    pass_at_1: bool
    prompt_too_long: bool  # the error says the prompt did not fit (a generation_error's cause)
    validation_error: str | None  # kept where the health reads it: no program extracted, or cut at max_tokens
    extraction_ok: bool | None
    finish_reason: str | None
    generated_tokens: int | None
    reasoning_tokens: int | None
    generation_s: float | None
    suppressions_added: int | None
    lint_error: bool
    metrics: AlertCounts | None
    lint_agreement: Agreement | None
    task: str | None = None  # None: LintEval's


PROMPT_TOO_LONG = "prompt_too_long"  # how a generation error for a prompt over the context begins
SCALARS = ("pass_at_1", "extraction_ok", "generated_tokens", "reasoning_tokens", "generation_s", "suppressions_added")
COLUMNS = (*SCALARS, "sample_id", "problem_id", "language", "task", "status", "verdict", "error",
           "validation_error", "finish_reason", "lint_error", "metrics", "lint_agreement")


class Strings:
    """One object per distinct value of the few-valued strings (a memo), and a sample id shared
    with the row before it (draws of a sample are adjacent in row_id order) without a memo that
    would hold every id."""

    def __init__(self) -> None:
        self._memo: dict[str, str] = {}
        self._sample_id = ""

    def few(self, value: str) -> str:
        return self._memo.setdefault(value, value)

    def few_or_none(self, value: str | None) -> str | None:
        return None if value is None else self.few(value)

    def sample_id(self, value: str) -> str:
        if value != self._sample_id:
            self._sample_id = value
        return self._sample_id


def metric_row(d: dict[str, Any], strings: Strings | None = None) -> MetricRow:
    """From a row's ``COLUMNS`` as an Arrow table or ``model_dump`` gives them."""
    strings = strings or Strings()
    m, a, finish_reason = d["metrics"], d["lint_agreement"], strings.few_or_none(d["finish_reason"])
    counts = None if m is None else AlertCounts(
        m["original_total_messages"], m["revised_total_messages"], m["new_messages_count"], m["added_lines"],
        m["deleted_lines"], tuple(CategoryAlerts(strings.few(c["category"]), c["original"], c["revised"])
                                  for c in m["category_counts"]))
    read = d["extraction_ok"] is False or finish_reason == FinishReason.LENGTH  # see health.py
    return MetricRow(
        **{name: d[name] for name in SCALARS},
        sample_id=strings.sample_id(d["sample_id"]),
        problem_id=strings.few_or_none(d["problem_id"]),
        language=strings.few_or_none(d["language"]),
        status=Status(d["status"]),
        verdict=None if d["verdict"] is None else Verdict(d["verdict"]),
        prompt_too_long=(d["error"] or "").startswith(PROMPT_TOO_LONG),
        validation_error=strings.few_or_none(d["validation_error"]) if read else None,
        finish_reason=finish_reason,
        lint_error=d["lint_error"] is not None,
        metrics=counts,
        lint_agreement=None if a is None else Agreement(a["recorded"], a["relinted"], a["matched"]),
        task=strings.few_or_none(d.get("task")),
    )


def metric_rows(rows: ResultTable | Iterable[ResultRow | MetricRow]) -> Iterator[MetricRow]:
    """The metric rows of a result table, or of models (made-up rows, in tests and ``compute``)."""
    strings = Strings()
    if isinstance(rows, ResultTable):
        yield from (metric_row(d, strings) for d in rows.dicts(COLUMNS))
        return
    for row in rows:
        yield row if isinstance(row, MetricRow) else metric_row(row.model_dump(include=set(COLUMNS)), strings)
