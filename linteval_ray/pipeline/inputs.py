"""The prologue of every evaluation: load the split, one input row per sample and draw, and a
result row for every input row that failed to load (``run`` and ``validate`` share it)."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from linteval_ray.config import RunConfig
from linteval_ray.load.errors import LoadError
from linteval_ray.load.loader import LoadResult, load_split
from linteval_ray.load.presets import resolve_source
from linteval_ray.schema import LintEvalRecord, ResultRow, Status
from linteval_ray.schema.rows import InputRow

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Inputs:
    """What an evaluation starts from."""

    loaded: LoadResult
    rows: list[dict[str, Any]]  # InputRow columns, one row per (sample, draw)
    invalid: list[ResultRow]  # one per (malformed input row, draw)


def load_inputs(config: RunConfig) -> Inputs:
    """Load and validate the configured split, so every malformed row gets a named error."""
    loaded = load_split(resolve_source(config.dataset.source), config.dataset, config.storage)
    for error in loaded.errors:
        log.warning("input row skipped: %s", error)
    draws = config.generation.n
    return Inputs(loaded=loaded, rows=input_rows(loaded.records, draws),
                  invalid=invalid_input_rows(loaded.errors, draws, {r.sample_id for r in loaded.records}))


def input_rows(records: Iterable[LintEvalRecord], draws: int) -> list[dict[str, Any]]:
    """One row per (sample, draw), ordered by problem, then language: consecutive rows make a
    batch, so a problem's samples of every language (and draws) share one validation actor,
    which builds the problem's tools, tests and reference answers once (README: Storage and the
    content cache)."""
    rows = []
    for record in sorted(records, key=lambda r: (r.problem_id, r.language, r.sample_id)):
        record_json = record.model_dump_json()
        rows += [InputRow.of(record, draw, record_json).model_dump() for draw in range(draws)]
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
