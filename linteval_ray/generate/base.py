"""The generation stage interface every backend implements.

A stage maps a Ray Dataset of prompts to a Ray Dataset of responses. Input rows
carry ``row_id, sample_id, draw, language, record_json`` (the validated
LintEval record as JSON) and any other columns, which are kept. Output rows add:

- ``raw_response``: the model's text (None when the backend gives code directly)
- ``revised_code``: code given directly (replay of a ``revised_code`` column), else None
- ``tokens_used``: generated tokens, when known
- ``generation_error``: why generation failed for this row (None on success)
- ``model``: the model / backend name recorded in results

A failure on one row is that row's ``generation_error``; it never fails the job.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa
    import ray.data

GENERATION_TYPES = {
    "raw_response": "string",
    "revised_code": "string",
    "tokens_used": "int64",
    "generation_error": "string",
    "model": "string",
}
GENERATION_COLUMNS = tuple(GENERATION_TYPES)


def with_generation_columns(batch: "pa.Table", values: list[dict[str, Any]]) -> "pa.Table":
    """``batch`` plus the generation columns, typed explicitly so that a batch whose values
    are all None still has the same schema as every other batch."""
    import pyarrow as pa

    for name, type_name in GENERATION_TYPES.items():
        column = pa.array([v.get(name) for v in values], type=pa.type_for_alias(type_name))
        if name in batch.column_names:
            batch = batch.set_column(batch.column_names.index(name), name, column)
        else:
            batch = batch.append_column(name, column)
    return batch


class GenerationStage(ABC):
    """Turns prompt rows into response rows (see the module docstring for columns)."""

    name: str

    @abstractmethod
    def apply(self, ds: "ray.data.Dataset") -> "ray.data.Dataset":
        """Add the generation columns to every row of ``ds``."""

    def model_name(self) -> str:
        return self.name
