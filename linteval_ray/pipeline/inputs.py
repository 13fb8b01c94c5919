"""Turn loaded records into pipeline input rows (one per sample and draw).

Rows carry the validated record as JSON (``record_json``): Arrow then needs no
schema for the record's nested, heterogeneous fields, and each stage parses it
back into a ``LintEvalRecord`` when it needs more than the ids.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from linteval_ray.load.loader import LoadError
from linteval_ray.schema import LintEvalRecord, ResultRow, Status


def input_rows(records: Iterable[LintEvalRecord], draws: int) -> list[dict[str, Any]]:
    """One row per (sample, draw), ordered by language then problem: a batch then shares
    one linter process (one PMD JVM for its Java rows) and a problem's cached tools."""
    rows = []
    for record in sorted(records, key=lambda r: (r.language, r.problem_id, r.sample_id)):
        record_json = record.model_dump_json()
        for draw in range(draws):
            rows.append(
                {
                    "row_id": ResultRow.make_row_id(record.sample_id, draw),
                    "sample_id": record.sample_id,
                    "draw": draw,
                    "problem_id": record.problem_id,
                    "language": record.language,
                    "record_json": record_json,
                }
            )
    return rows


def invalid_input_rows(
    errors: Iterable[LoadError], draws: int, taken_ids: set[str]
) -> list[ResultRow]:
    """A result row for every input row that failed to load, so nothing is silently lost.

    The row keeps the sample id it claimed unless a valid row already has it (a duplicate),
    in which case the row number makes its id unique."""
    rows = []
    for error in errors:
        sample_id = error.sample_id or f"#row-{error.row_number}"
        if sample_id in taken_ids:
            sample_id = f"{sample_id}#row-{error.row_number}"
        taken_ids.add(sample_id)
        for draw in range(draws):
            rows.append(
                ResultRow(
                    sample_id=sample_id,
                    draw=draw,
                    row_id=ResultRow.make_row_id(sample_id, draw),
                    status=Status.INVALID_INPUT,
                    error=str(error),
                )
            )
    return rows
