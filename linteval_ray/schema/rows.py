"""The rows that flow between the pipeline's stages: input rows and the generation columns.

An input row is one (sample, draw). It carries the validated record as JSON
(``record_json``): Arrow then needs no schema for the record's nested, heterogeneous
fields, and a stage that needs more than the ids parses it back with ``record_of``.
Generation adds the ``Generation`` columns to it; validation turns it into a ``ResultRow``.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

import pyarrow as pa
from pydantic import BaseModel, Field

from linteval_ray.schema.arrow import model_fields
from linteval_ray.schema.record import LintEvalRecord
from linteval_ray.schema.result import GENERATION_FACTS, GenerationFacts, ResultRow
from linteval_ray.schema.task import TaskRecord

RECORD_COLUMN = "record_json"


class InputRow(BaseModel):
    """One row of the pipeline's input."""

    row_id: str = Field(description="sample_id/draw, the key of the result row")
    sample_id: str
    draw: int
    problem_id: str
    language: str
    record_json: str = Field(description="the validated record (a LintEvalRecord, or a task's TaskRecord) as JSON")

    @classmethod
    def of(cls, record: LintEvalRecord | TaskRecord, draw: int, record_json: str | None = None) -> InputRow:
        """The row of ``record``'s ``draw``; pass ``record_json`` to share one dump among the draws."""
        return cls(row_id=ResultRow.make_row_id(record.sample_id, draw), sample_id=record.sample_id, draw=draw,
                   problem_id=record.problem_id, language=record.language,
                   record_json=record.model_dump_json() if record_json is None else record_json)


class Generation(GenerationFacts):
    """What every generation backend adds to an input row. A failure on one row is that row's
    ``generation_error``; it never fails the job."""

    raw_response: str | None = Field(default=None, description="the model's text (None when code is given directly)")
    revised_code: str | None = Field(default=None, description="code given directly (replay), else None")
    tokens_used: int | None = Field(default=None, description="generated tokens, when known")
    generation_error: str | None = Field(default=None, description="why generation failed for this row")
    model: str | None = Field(default=None, description="the model / backend name recorded in results")


INPUT_COLUMNS: tuple[str, ...] = tuple(InputRow.model_fields)
GENERATION_COLUMNS: tuple[str, ...] = tuple(Generation.model_fields)


@cache
def generation_schema() -> pa.Schema:
    """Arrow types of the generation columns: a batch whose values are all None keeps them."""
    return pa.schema(model_fields(Generation))


def generation_facts(row: Mapping[str, Any]) -> dict[str, Any]:
    """The generation facts a pipeline row carries, for its result row."""
    return {name: row.get(name) for name in GENERATION_FACTS}


def record_of(row: Mapping[str, Any]) -> LintEvalRecord:
    """The record a pipeline row carries (raises pydantic's ``ValidationError`` if it is malformed)."""
    return LintEvalRecord.model_validate_json(row[RECORD_COLUMN])
