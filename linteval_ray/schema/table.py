"""``ResultTable``: a run's result rows as one Arrow table, models built only where needed.

A ``ResultRow`` model costs a few kilobytes of Python objects (its messages, timings, ...); the
same row in Arrow is its bytes. The reduction and the report read the columns they aggregate
and build models only for the rows they show at once (one site chunk, the slowest ten), so the
driver's memory no longer grows with a model per row.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from linteval_ray.schema.arrow import result_schema, rows_to_table, table_to_rows
from linteval_ray.schema.result import ResultRow

BATCH_ROWS = 4096  # rows turned into Python objects at once when a column set is walked


class ResultTable:
    """Result rows (every column of ``result_schema``) in a fixed order."""

    def __init__(self, table: pa.Table) -> None:
        self.table = table

    @classmethod
    def of_rows(cls, rows: Sequence[ResultRow]) -> ResultTable:
        return cls(rows_to_table(list(rows)))

    @classmethod
    def empty(cls) -> ResultTable:
        return cls(result_schema().empty_table())

    def __len__(self) -> int:
        return int(self.table.num_rows)

    def column(self, name: str) -> list[Any]:
        """One top-level column as Python values (scalars: a few bytes a row)."""
        values: list[Any] = self.table.column(name).to_pylist()
        return values

    def field(self, column: str, child: str) -> list[Any]:
        """One field of a struct column (None where the struct is)."""
        values: list[Any] = pc.struct_field(self.table.column(column), child).to_pylist()
        return values

    def rows(self, indices: Sequence[int]) -> list[ResultRow]:
        """The models of the rows at ``indices``, in that order."""
        return table_to_rows(self.table.take(pa.array(indices, pa.int64()))) if indices else []

    def dicts(self, columns: Sequence[str]) -> Iterator[dict[str, Any]]:
        """Each row's ``columns`` as a dict (nested structs as dicts), ``BATCH_ROWS`` at a time."""
        for batch in self.table.select(list(columns)).to_batches(max_chunksize=BATCH_ROWS):
            yield from batch.to_pylist()
