"""What can go wrong while loading: one bad row (a ``MalformedRow`` record, the load goes on) or the
whole source (``SourceError``, raised)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from linteval_ray.errors import LintEvalError


class MalformedRow(BaseModel):
    """One row that could not become a record; the other rows still load."""

    model_config = ConfigDict(frozen=True)

    row_number: int = Field(ge=1, description="1-based: the line of a JSONL file, the row of a Parquet file")
    sample_id: str | None = Field(default=None, description="when the row carried a usable one")
    field: str | None = Field(
        default=None, description="dotted path of the offending field, e.g. linter_messages.0.line")
    message: str

    def __str__(self) -> str:
        where = f"row {self.row_number}"
        if self.sample_id is not None:
            where += f" (sample {self.sample_id})"
        if self.field is not None:
            where += f": field '{self.field}'"
        return f"{where}: {self.message}"


class SourceError(LintEvalError):
    """The source as a whole cannot be read (missing, unreachable, unknown format)."""
