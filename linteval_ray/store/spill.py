"""``Buckets``: rows routed to temporary Arrow IPC files by a key, read back one bucket at a time.

The building block of the external sorts and partitions over result rows (results.parquet's
compaction, the site's chunks): one sequential pass writes each slice of rows to its bucket's
file, then each bucket is read whole, so memory holds one bucket, not the rows. Arrow IPC
streams, not Parquet: a stream keeps no footer listing its thousands of small batches.

Arrow's default pool (mimalloc) keeps the pages of freed buffers: over the many row groups and
shards a pass decodes, the driver's RSS grew by ~50-80 MB at 100k rows with a few MB of Arrow
buffers alive. Each scatter and read hands the pool's unused pages back (``release_unused``).
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

import numpy as np
import numpy.typing as npt
import pyarrow as pa


class Buckets:
    """A temporary directory of one Arrow IPC stream per bucket (all of one schema); use as a
    context manager (the files are removed on exit)."""

    def __init__(self, prefix: str, schema: pa.Schema) -> None:
        self._schema = schema
        self._dir = tempfile.TemporaryDirectory(prefix=prefix)
        self._writers: dict[int, pa.RecordBatchStreamWriter] = {}
        self._written: set[int] = set()
        self._reading = False

    def __enter__(self) -> Buckets:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._close_writers()
        self._dir.cleanup()

    def write(self, bucket: int, table: pa.Table) -> None:
        """Append ``table`` (rows in the order they should be read back) to ``bucket``."""
        if self._reading:
            raise RuntimeError("Buckets are read-only once one was read")
        if bucket not in self._writers:
            self._writers[bucket] = pa.ipc.new_stream(self._path(bucket), self._schema)
            self._written.add(bucket)
        self._writers[bucket].write_table(table)

    def scatter(self, table: pa.Table, buckets: Sequence[int] | npt.NDArray[np.int64]) -> None:
        """Row i of ``table`` to bucket ``buckets[i]``, in the table's order within a bucket: one
        stable sort (a single take, none if the rows are in bucket order already) and a zero-copy
        slice per bucket; a take per bucket costs about as much as the sort, whatever its rows."""
        keys = np.asarray(buckets, dtype=np.int64)
        if not keys.size:
            return
        if np.any(np.diff(keys) < 0):
            order = np.argsort(keys, kind="stable")
            table, keys = table.take(pa.array(order)), keys[order]
        starts = [0, *(np.flatnonzero(np.diff(keys)) + 1).tolist()]  # where each bucket's rows begin
        for start, end in zip(starts, [*starts[1:], keys.size], strict=True):
            self.write(int(keys[start]), table.slice(start, end - start))
        del table
        pa.default_memory_pool().release_unused()

    def written(self) -> list[int]:
        """The buckets written to, in ascending order."""
        return sorted(self._written)

    def read(self, bucket: int) -> pa.Table:
        """Every row written to ``bucket`` (none if it never was), in write order; writing ends
        at the first read."""
        self._reading = True
        self._close_writers()
        pa.default_memory_pool().release_unused()  # the bucket read before this one is gone
        if bucket not in self._written:
            return self._schema.empty_table()
        with pa.ipc.open_stream(self._path(bucket)) as stream:
            return stream.read_all()

    def _close_writers(self) -> None:
        for writer in self._writers.values():
            writer.close()
        self._writers.clear()

    def _path(self, bucket: int) -> Path:
        return Path(self._dir.name, f"{bucket}.arrows")
