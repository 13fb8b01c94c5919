"""``ResultTable``: a run's result rows, their small columns in memory and the rest read in groups.

A ``ResultRow`` model costs a few kilobytes of Python objects (its messages, timings, ...), and
even as Arrow a row's messages and programs are most of its bytes. The reduction and the report
aggregate the small columns (``COLUMNS``: ids, statuses, counts, the metrics struct) held in
memory, and read whole rows from the compacted ``results.parquet`` one row group at a time
(``GROUP_ROWS`` rows), building models only for the rows they show at once (one site chunk, the
slowest ten). The driver's memory then grows by a few hundred bytes a row, not by the rows.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from linteval_ray.schema.arrow import conformed, result_schema, rows_to_table, table_to_rows
from linteval_ray.schema.result import ResultRow

if TYPE_CHECKING:
    from linteval_ray.store.spill import Buckets

GROUP_ROWS = 4096  # rows read (and sorted, by the reduction) at once; results.parquet's row group size
BATCH_ROWS = 4096  # rows turned into Python objects at once when small columns are walked
# The columns the metrics and the report's tables aggregate: kept in memory for every row.
COLUMNS = ("row_id", "sample_id", "problem_id", "language", "task", "facets", "status", "verdict", "pass_at_1",
           "error", "validation_error", "extraction_ok", "finish_reason", "tokens_used", "generated_tokens",
           "reasoning_tokens", "generation_s", "suppressions_added", "lint_error", "metrics", "lint_agreement",
           "timings", "worker", "prompt_version")


class ResultTable:
    """Result rows (every column of ``result_schema``) in a fixed order: ``columns`` holds
    ``COLUMNS`` of every row; ``full`` (a table or an opened Parquet file) holds whole rows."""

    def __init__(self, columns: pa.Table, full: pa.Table | pq.ParquetFile) -> None:
        self._columns = columns
        self._full = full
        sizes = ([full.metadata.row_group(i).num_rows for i in range(full.num_row_groups)]
                 if isinstance(full, pq.ParquetFile) else
                 [min(GROUP_ROWS, full.num_rows - start) for start in range(0, full.num_rows, GROUP_ROWS)])
        self._starts = [0, *itertools.accumulate(sizes)][:-1]
        if sum(sizes) != columns.num_rows:
            raise ValueError(f"{sum(sizes)} full rows for {columns.num_rows} rows of small columns")

    @classmethod
    def of_rows(cls, rows: Sequence[ResultRow]) -> ResultTable:
        table = rows_to_table(list(rows))
        return cls(table.select(list(COLUMNS)), table)

    @classmethod
    def empty(cls) -> ResultTable:
        table = result_schema().empty_table()
        return cls(table.select(list(COLUMNS)), table)

    def __len__(self) -> int:
        return int(self._columns.num_rows)

    def column(self, name: str) -> list[Any]:
        """One of ``COLUMNS`` as Python values."""
        values: list[Any] = self._columns.column(name).to_pylist()
        return values

    def arrow(self, name: str) -> pa.ChunkedArray:
        """One of ``COLUMNS`` as Arrow (no Python object per row)."""
        return self._columns.column(name)

    def field(self, column: str, child: str) -> list[Any]:
        """One field of a struct column of ``COLUMNS`` (None where the struct is)."""
        values: list[Any] = pc.struct_field(self._columns.column(column), child).to_pylist()
        return values

    def dicts(self, columns: Sequence[str]) -> Iterator[dict[str, Any]]:
        """Each row's ``columns`` (of ``COLUMNS``) as a dict, ``BATCH_ROWS`` at a time."""
        for batch in self._columns.select(list(columns)).to_batches(max_chunksize=BATCH_ROWS):
            yield from batch.to_pylist()

    def take(self, indices: Sequence[int]) -> pa.Table:
        """Whole rows at ``indices``, in that order, reading each row group they touch once."""
        by_group: dict[int, list[int]] = {}
        for position, index in enumerate(indices):
            by_group.setdefault(bisect.bisect_right(self._starts, index) - 1, []).append(position)
        parts, order = [], []
        for group, positions in sorted(by_group.items()):
            offsets = [indices[p] - self._starts[group] for p in positions]
            parts.append(self._group(group).take(pa.array(offsets, pa.int64())))
            order += positions
        if not parts:
            return result_schema().empty_table()
        gathered = pa.concat_tables(parts)
        placed = [0] * len(order)  # row k of `gathered` belongs at position order[k]
        for k, position in enumerate(order):
            placed[position] = k
        return gathered.take(pa.array(placed, pa.int64()))

    def spill(self, bucket_of: Sequence[int], buckets: Buckets) -> None:
        """Every row to bucket ``bucket_of[index]``, in the table's order, in one pass over the row
        groups (a partition by a key scattered over the whole table costs one read, not one a part)."""
        for group, start in enumerate(self._starts):
            table = self._group(group)
            buckets.scatter(table, bucket_of[start:start + table.num_rows])

    def rows(self, indices: Sequence[int]) -> list[ResultRow]:
        """The models of the rows at ``indices``, in that order."""
        return table_to_rows(self.take(indices)) if indices else []

    def _group(self, group: int) -> pa.Table:
        if isinstance(self._full, pq.ParquetFile):
            return conformed(self._full.read_row_group(group))
        return self._full.slice(self._starts[group], GROUP_ROWS)
