"""Load a LintEval split: stream rows, validate each against ``LintEvalRecord``, filter.

A bad row becomes a :class:`MalformedRow` naming its row, sample and field; it never
stops the others from loading. Only a source that cannot be read at all raises
(:class:`SourceError`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from contextlib import closing
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from linteval_ray.config import DatasetConfig, StorageConfig
from linteval_ray.load.errors import MalformedRow
from linteval_ray.load.presets import resolve_source
from linteval_ray.load.readers import Row, iter_rows
from linteval_ray.schema.record import LintEvalRecord
from linteval_ray.schema.task import TaskRecord
from linteval_ray.store import DEFAULT_RETRY, RetryPolicy

logger = logging.getLogger(__name__)


class LoadResult(BaseModel):
    source: str = Field(description="the resolved URL that was read")
    records: list[LintEvalRecord] = Field(default_factory=list)
    errors: list[MalformedRow] = Field(default_factory=list)


def load_split(
    source: str,
    options: DatasetConfig | None = None,
    storage: StorageConfig | None = None,
    *,
    retry: RetryPolicy = DEFAULT_RETRY,
) -> LoadResult:
    """Read ``source`` (a preset name or a JSONL/Parquet URL) into validated records, in this
    process (``validate``, ``calibrate``, the report's originals; ``run`` streams with Ray Data).

    Rows go through :class:`RowChecker`, as they do in ``run``'s stream.
    """
    url = resolve_source(source)
    result = LoadResult(source=url)
    with closing(iter_rows(url, storage, retry=retry)) as rows:
        for checked in checked_rows(rows, options or DatasetConfig()):
            if isinstance(checked, InvalidRow):
                result.errors.append(checked.error)
            else:
                result.records.append(checked)
    logger.info("loaded %d records from %s (%d bad rows)", len(result.records), url, len(result.errors))
    return result


@dataclass(frozen=True)
class InvalidRow:
    """A row that failed to load, and the sample id its ``invalid_input`` result rows carry."""

    error: MalformedRow
    sample_id: str


LintEvalChecked = LintEvalRecord | InvalidRow
Checked = LintEvalChecked | TaskRecord  # another task's reader yields its own records


def checked_rows(rows: Iterable[Row], options: DatasetConfig) -> Iterator[LintEvalChecked]:
    """The rows of one source in file order, each checked by one :class:`RowChecker`."""
    checker = RowChecker(options)
    for row_number, outcome in rows:
        if checker.full:
            return
        checked = checker.check(row_number, outcome)
        if checked is not None:
            yield checked


class RowChecker:
    """The per-row work of loading, in file order, with the state it needs (O(ids), no bodies):
    the dataset filters (checked on raw values, so excluded rows are never validated), the
    validation against ``LintEvalRecord``, the claim of sample ids and the ``limit``.

    The first row that names a sample id, valid or not, keeps it: a later valid row with the
    same id is a ``duplicate sample_id`` error, and a later invalid one gets ``<id>#row-N``.
    (Decided as rows arrive, so a stream never has to look ahead.)
    """

    def __init__(self, options: DatasetConfig) -> None:
        self._wanted = _RowFilter(options)
        self._limit = options.limit
        self._kept = 0
        self._first_row_of: dict[str, int] = {}

    @property
    def full(self) -> bool:
        """``limit`` records are kept: the rest of the source need not be read."""
        return self._limit is not None and self._kept >= self._limit

    def check(self, row_number: int, outcome: dict[str, Any] | MalformedRow) -> LintEvalChecked | None:
        """The row as a record or an invalid row; None when the filters exclude it."""
        # Unparsable rows cannot be matched against filters, so they are always reported.
        if isinstance(outcome, dict) and not self._wanted.keeps(outcome):
            return None
        checked = validate_row(row_number, outcome) if isinstance(outcome, dict) else outcome
        if isinstance(checked, LintEvalRecord):
            first = self._first_row_of.setdefault(checked.sample_id, row_number)
            if first == row_number:
                self._kept += 1
                return checked
            checked = MalformedRow(row_number=row_number, sample_id=checked.sample_id, field="sample_id",
                                message=f"duplicate sample_id (first seen at row {first})")
        return InvalidRow(error=checked, sample_id=self._claim_for_invalid(checked))

    def _claim_for_invalid(self, error: MalformedRow) -> str:
        sample_id = error.sample_id or f"#row-{error.row_number}"
        if self._first_row_of.setdefault(sample_id, error.row_number) != error.row_number:
            sample_id = f"{sample_id}#row-{error.row_number}"
            self._first_row_of[sample_id] = error.row_number
        return sample_id


def validate_row(row_number: int, raw: dict[str, Any]) -> LintEvalRecord | MalformedRow:
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


def _row_error(row_number: int, raw: dict[str, Any], exc: ValidationError) -> MalformedRow:
    problems = exc.errors(include_url=False, include_input=False)
    first, rest = problems[0], problems[1:]
    message = first["msg"]
    if rest:
        others = "; ".join(f"field '{_field_path(p['loc'])}': {p['msg']}" for p in rest)
        message = f"{message} (also {others})"
    sample_id = raw.get("sample_id")
    return MalformedRow(
        row_number=row_number,
        sample_id=sample_id if isinstance(sample_id, str) and sample_id else None,
        field=_field_path(first["loc"]) or None,
        message=message,
    )


def _field_path(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(part) for part in loc)
