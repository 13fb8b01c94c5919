"""Result shards: atomic Parquet files named by the rows they hold.

Exactly-once without a coordinator: a shard is written in one atomic step (a
rename on local disk, a single PUT on object stores) and its name is a hash of
its sorted row ids, so a retried task rewrites the same file instead of adding a
duplicate. A restarted run lists the shards, reads only their ``row_id``
column, and skips those rows. The reduction dedupes by ``row_id`` as a last
line of defence and reports any duplicate it had to drop.
"""

from __future__ import annotations

import hashlib
import io
import logging
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import pyarrow as pa
import pyarrow.parquet as pq

from linteval_ray.schema import ResultRow
from linteval_ray.schema.arrow import result_schema, rows_to_table, table_to_rows
from linteval_ray.schema.table import ResultTable
from linteval_ray.store.folder import SHARD_SUFFIX, RunFolder

log = logging.getLogger(__name__)


def shard_name(row_ids: Sequence[str]) -> str:
    digest = hashlib.sha256("\n".join(sorted(row_ids)).encode()).hexdigest()[:20]
    return f"{digest}-{len(row_ids)}{SHARD_SUFFIX}"


def write_shard(folder: RunFolder, table: pa.Table) -> str:
    """Write one shard atomically; returns its name."""
    name = shard_name(table.column("row_id").to_pylist())
    buf = io.BytesIO()
    pq.write_table(table.cast(result_schema()), buf, compression="zstd")
    folder.store.write_atomic(folder.shard(name), buf.getvalue())
    return name


def write_rows(folder: RunFolder, rows: Sequence[ResultRow]) -> str | None:
    return write_shard(folder, rows_to_table(list(rows))) if rows else None


def _read(folder: RunFolder, url: str, columns: list[str] | None) -> pa.Table:
    return pq.read_table(io.BytesIO(folder.store.read_bytes(url)), columns=columns)


def _read_all(folder: RunFolder, columns: list[str] | None) -> list[pa.Table]:
    urls = folder.store.list_files(folder.shards, SHARD_SUFFIX, recursive=False)
    with ThreadPoolExecutor(max_workers=16) as pool:
        return list(pool.map(lambda url: _read(folder, url, columns), urls))


def done_row_ids(folder: RunFolder) -> set[str]:
    """Row ids durably written by earlier attempts of this run."""
    done: set[str] = set()
    for table in _read_all(folder, ["row_id"]):
        done.update(table.column("row_id").to_pylist())
    return done


def read_results(folder: RunFolder) -> tuple[ResultTable, int]:
    """All result rows as one Arrow table, one row per row id (sorted by it), and how many
    duplicates were dropped (the first copy, in listing order, is kept)."""
    tables = [table.cast(result_schema()) for table in _read_all(folder, None)]
    table = pa.concat_tables(tables) if tables else result_schema().empty_table()
    first: dict[str, int] = {}
    for index, row_id in enumerate(table.column("row_id").to_pylist()):
        first.setdefault(row_id, index)
    duplicates = table.num_rows - len(first)
    if duplicates:
        log.warning("dropped %d duplicate result rows (same row_id in several shards)", duplicates)
    return ResultTable(table.take(pa.array([first[k] for k in sorted(first)], pa.int64()))), duplicates


def read_rows(folder: RunFolder) -> tuple[list[ResultRow], int]:
    """All result rows as models, one per row id (sorted), and how many duplicates were dropped."""
    results, duplicates = read_results(folder)
    return table_to_rows(results.table), duplicates


def write_results_table(folder: RunFolder, results: ResultTable) -> None:
    """The compacted, sorted ``results.parquet`` next to the shards (what users open)."""
    buf = io.BytesIO()
    pq.write_table(results.table, buf, compression="zstd")
    folder.store.write_atomic(folder.results, buf.getvalue())
