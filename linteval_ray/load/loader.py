"""Load a LintEval split: stream rows, validate each against ``LintEvalRecord``, filter.

A bad row becomes a :class:`LoadError` naming its row, sample and field; it never
stops the others from loading. Only a source that cannot be read at all raises
(:class:`SourceError`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import closing
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from linteval_ray.config import DatasetConfig, StorageConfig
from linteval_ray.load.errors import LoadError
from linteval_ray.load.presets import resolve_source
from linteval_ray.load.readers import Row, iter_rows
from linteval_ray.schema.record import LintEvalRecord
from linteval_ray.store import DEFAULT_RETRY, RetryPolicy

logger = logging.getLogger(__name__)


class LoadResult(BaseModel):
    source: str = Field(description="the resolved URL that was read")
    records: list[LintEvalRecord] = Field(default_factory=list)
    errors: list[LoadError] = Field(default_factory=list)


def load_split(
    source: str,
    options: DatasetConfig | None = None,
    storage: StorageConfig | None = None,
    *,
    retry: RetryPolicy = DEFAULT_RETRY,
) -> LoadResult:
    """Read ``source`` (a preset name or a JSONL/Parquet URL) into validated records.

    From ``options`` only the filters are used (``limit``, ``languages``,
    ``sample_ids``, ``problem_ids``); rows outside them are skipped silently and
    ``limit`` counts kept records. A repeated sample_id is an error on the later row.
    """
    options = options or DatasetConfig()
    url = resolve_source(source)
    result = LoadResult(source=url)
    wanted = _RowFilter(options)
    first_row_of: dict[str, int] = {}
    with closing(iter_rows(url, storage, retry=retry)) as rows:
        for row_number, outcome in _selected(rows, wanted):
            if options.limit is not None and len(result.records) >= options.limit:
                break
            checked = validate_row(row_number, outcome) if isinstance(outcome, dict) else outcome
            if isinstance(checked, LintEvalRecord):
                checked = _claim_sample_id(row_number, checked, first_row_of)
            if isinstance(checked, LoadError):
                result.errors.append(checked)
            else:
                result.records.append(checked)
    logger.info("loaded %d records from %s (%d bad rows)", len(result.records), url, len(result.errors))
    return result


def validate_row(row_number: int, raw: dict[str, Any]) -> LintEvalRecord | LoadError:
    """The row as a record, or one error naming its first bad field (and counting the rest)."""
    try:
        return LintEvalRecord.model_validate(raw)
    except ValidationError as exc:
        return _row_error(row_number, raw, exc)


class _RowFilter:
    """The dataset filters, checked on raw values so that excluded rows are never validated."""

    def __init__(self, options: DatasetConfig) -> None:
        self.languages: set[str] | None = set(options.languages) if options.languages is not None else None
        self.sample_ids = set(options.sample_ids) if options.sample_ids is not None else None
        self.problem_ids = set(options.problem_ids) if options.problem_ids is not None else None

    def keeps(self, raw: dict[str, Any]) -> bool:
        return (
            _allowed(raw.get("language"), self.languages)
            and _allowed(raw.get("sample_id"), self.sample_ids)
            and _allowed(raw.get("problem_id"), self.problem_ids)
        )


def _allowed(value: Any, allowed: set[str] | None) -> bool:
    return allowed is None or (isinstance(value, str) and value in allowed)


def _selected(rows: Iterator[Row], wanted: _RowFilter) -> Iterator[Row]:
    # Unparsable rows cannot be matched against filters, so they are always reported.
    for row_number, outcome in rows:
        if isinstance(outcome, LoadError) or wanted.keeps(outcome):
            yield row_number, outcome


def _claim_sample_id(
    row_number: int, record: LintEvalRecord, first_row_of: dict[str, int]
) -> LintEvalRecord | LoadError:
    first = first_row_of.setdefault(record.sample_id, row_number)
    if first == row_number:
        return record
    return LoadError(
        row_number=row_number,
        sample_id=record.sample_id,
        field="sample_id",
        message=f"duplicate sample_id (first seen at row {first})",
    )


def _row_error(row_number: int, raw: dict[str, Any], exc: ValidationError) -> LoadError:
    problems = exc.errors(include_url=False, include_input=False)
    first, rest = problems[0], problems[1:]
    message = first["msg"]
    if rest:
        others = "; ".join(f"field '{_field_path(p['loc'])}': {p['msg']}" for p in rest)
        message = f"{message} (also {others})"
    sample_id = raw.get("sample_id")
    return LoadError(
        row_number=row_number,
        sample_id=sample_id if isinstance(sample_id, str) and sample_id else None,
        field=_field_path(first["loc"]) or None,
        message=message,
    )


def _field_path(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(part) for part in loc)
