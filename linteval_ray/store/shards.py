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
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor

import fsspec
import pyarrow as pa
import pyarrow.parquet as pq

from linteval_ray.config import StorageConfig
from linteval_ray.schema import ResultRow
from linteval_ray.schema.arrow import result_schema, rows_to_table, table_to_rows
from linteval_ray.store.fs import filesystem, write_bytes_atomic

log = logging.getLogger(__name__)

SHARD_DIR = "shards"
SHARD_SUFFIX = ".parquet"


def shard_name(row_ids: Sequence[str]) -> str:
    digest = hashlib.sha256("\n".join(sorted(row_ids)).encode()).hexdigest()[:20]
    return f"{digest}-{len(row_ids)}{SHARD_SUFFIX}"


def write_shard(output: str, table: pa.Table, storage: StorageConfig | None) -> str:
    """Write one shard atomically; returns its name."""
    name = shard_name(table.column("row_id").to_pylist())
    buf = io.BytesIO()
    pq.write_table(table.cast(result_schema()), buf, compression="zstd")
    write_bytes_atomic(f"{output.rstrip('/')}/{SHARD_DIR}/{name}", buf.getvalue(), storage)
    return name


def write_rows(output: str, rows: Sequence[ResultRow], storage: StorageConfig | None) -> str | None:
    return write_shard(output, rows_to_table(list(rows)), storage) if rows else None


def _shard_paths(output: str, storage: StorageConfig | None) -> tuple[fsspec.AbstractFileSystem, list[str]]:
    fs, root = filesystem(output, storage)
    shard_dir = f"{root.rstrip('/')}/{SHARD_DIR}"
    if not fs.exists(shard_dir):
        return fs, []
    return fs, sorted(p for p in fs.ls(shard_dir, detail=False) if p.endswith(SHARD_SUFFIX))


def _read(fs: fsspec.AbstractFileSystem, path: str, columns: list[str] | None) -> pa.Table:
    with fs.open(path, "rb") as f:
        return pq.read_table(io.BytesIO(f.read()), columns=columns)


def _read_all(output: str, storage: StorageConfig | None, columns: list[str] | None) -> list[pa.Table]:
    fs, paths = _shard_paths(output, storage)
    with ThreadPoolExecutor(max_workers=16) as pool:
        return list(pool.map(lambda p: _read(fs, p, columns), paths))


def done_row_ids(output: str, storage: StorageConfig | None) -> set[str]:
    """Row ids durably written by earlier attempts of this run."""
    done: set[str] = set()
    for table in _read_all(output, storage, ["row_id"]):
        done.update(table.column("row_id").to_pylist())
    return done


def read_rows(output: str, storage: StorageConfig | None) -> tuple[list[ResultRow], int]:
    """All result rows, one per row id (sorted), and how many duplicates were dropped."""
    rows: dict[str, ResultRow] = {}
    duplicates = 0
    for table in _read_all(output, storage, None):
        for row in table_to_rows(table.cast(result_schema())):
            if row.row_id in rows:
                duplicates += 1
                continue
            rows[row.row_id] = row
    if duplicates:
        log.warning("dropped %d duplicate result rows (same row_id in several shards)", duplicates)
    return [rows[k] for k in sorted(rows)], duplicates


def write_results_table(output: str, rows: Iterable[ResultRow], storage: StorageConfig | None) -> None:
    """The compacted, sorted ``results.parquet`` next to the shards (what users open)."""
    buf = io.BytesIO()
    pq.write_table(rows_to_table(list(rows)), buf, compression="zstd")
    write_bytes_atomic(f"{output.rstrip('/')}/results.parquet", buf.getvalue(), storage)
