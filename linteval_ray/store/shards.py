"""Result shards: atomic Parquet files named by the rows they hold.

Exactly-once without a coordinator: a shard is written in one atomic step (a
rename on local disk, a single PUT on object stores) and its name is a hash of
its sorted row ids, so a retried task rewrites the same file instead of adding a
duplicate. A restarted run lists the shards, reads only their ``row_id``
column, and skips those rows, except ``infra_error`` rows: those were our fault,
not the model's, so a rerun judges them again. The reduction dedupes by
``row_id`` (a judged copy wins over an ``infra_error`` one, so a retried row
replaces its failure) and reports any duplicate it had to drop.
"""

from __future__ import annotations

import hashlib
import io
import itertools
import logging
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from linteval_ray.schema import ResultRow
from linteval_ray.schema.arrow import conformed, result_schema, rows_to_table, table_to_rows
from linteval_ray.schema.result import Status
from linteval_ray.schema.table import COLUMNS, GROUP_ROWS, ResultTable
from linteval_ray.store.folder import SHARD_SUFFIX, RunFolder
from linteval_ray.store.spill import Buckets

log = logging.getLogger(__name__)

_READ_AHEAD = 4  # shards read at once (threads, and tables in memory)
_SCATTER_SHARDS = 32  # shards whose kept rows are taken and scattered to the groups together
_POSITION = "_position"  # a row's place in row_id order, while results.parquet is sorted


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
    # One thread per shard: a small file's columns decoded in parallel cost twice the CPU (handing
    # ~80 tiny column chunks to threads); the callers read a few shards at once instead. A
    # ParquetFile, not pq.read_table: read_table builds a dataset, fragment and scanner per call,
    # which costs more than decoding a 64-row shard (6.7 against 4.7 ms of CPU for all of its
    # columns, 2.0 against 0.8 ms for row_id and status).
    shard = pq.ParquetFile(pa.BufferReader(folder.store.read_bytes(url)))
    return shard.read(columns=columns, use_threads=False)


def _read_all(folder: RunFolder, columns: list[str] | None) -> list[pa.Table]:
    urls = folder.store.list_files(folder.shards, SHARD_SUFFIX, recursive=False)
    with ThreadPoolExecutor(max_workers=16) as pool:
        return list(pool.map(lambda url: _read(folder, url, columns), urls))


def done_row_ids(folder: RunFolder) -> set[str]:
    """Row ids durably written by earlier attempts of this run, but for ``infra_error`` rows
    (a rerun retries them)."""
    done: set[str] = set()
    for table in _read_all(folder, ["row_id", "status"]):
        judged = pc.not_equal(table.column("status"), Status.INFRA_ERROR.value)
        done.update(table.column("row_id").filter(judged).to_pylist())
    return done


def _stream(folder: RunFolder, urls: Sequence[str], columns: list[str] | None) -> Iterator[pa.Table]:
    """The shards at ``urls`` in order, read a few at a time (never all of them at once)."""
    with ThreadPoolExecutor(max_workers=_READ_AHEAD) as pool:
        for start in range(0, len(urls), _READ_AHEAD):
            yield from pool.map(lambda url: _read(folder, url, columns), urls[start:start + _READ_AHEAD])


def _placement(folder: RunFolder, urls: Sequence[str]) -> tuple[list[tuple[list[int], list[int]]], int]:
    """For each shard, the rows it keeps and their positions in row_id order, and how many
    duplicates are dropped. The first copy of a row id in listing order is kept, unless it is an
    ``infra_error`` and a later copy is not (a rerun's retry of it)."""
    first: dict[str, tuple[int, int]] = {}
    failed: set[str] = set()  # row ids whose kept copy is an infra_error
    total = 0
    for shard, table in enumerate(_stream(folder, urls, ["row_id", "status"])):
        statuses = table.column("status").to_pylist()
        for row, row_id in enumerate(table.column("row_id").to_pylist()):
            total += 1
            infra = statuses[row] == Status.INFRA_ERROR.value
            if row_id not in first or (row_id in failed and not infra):
                first[row_id] = (shard, row)
                if infra:
                    failed.add(row_id)
                else:
                    failed.discard(row_id)
    kept: list[tuple[list[int], list[int]]] = [([], []) for _ in urls]
    for position, row_id in enumerate(sorted(first)):
        shard, row = first[row_id]
        kept[shard][0].append(row)
        kept[shard][1].append(position)
    return kept, total - len(first)


def compact_results(folder: RunFolder) -> tuple[ResultTable, int]:
    """Write ``results.parquet`` (every row once, sorted by row_id, in row groups of
    ``GROUP_ROWS``) by an external sort: each shard's rows go to the temporary file of their
    position's group, then each group is sorted and appended. Returns the rows (their small
    columns in memory, whole rows read back from ``results.parquet``) and the duplicates dropped."""
    urls = folder.store.list_files(folder.shards, SHARD_SUFFIX, recursive=False)
    kept, duplicates = _placement(folder, urls)
    if duplicates:
        log.warning("dropped %d duplicate result rows (same row_id in several shards: a retried write, or an "
                    "infra_error a rerun judged again, whose judged copy is kept)", duplicates)
    schema = result_schema()
    # The small columns of each sorted group, kept as they are written (their own buffers, no copy):
    # gathered shard by shard, merged and sorted at the end, they cost two copies and the pages
    # the pool keeps of them.
    columns: list[pa.Table] = []
    with Buckets("linteval-reduce-", schema.append(pa.field(_POSITION, pa.int64()))) as groups:
        for table in _kept_batches(folder, urls, kept):
            groups.scatter(table, np.asarray(table.column(_POSITION)) // GROUP_ROWS)
        buf = io.BytesIO()
        with pq.ParquetWriter(buf, schema, compression="zstd") as out:
            for group in groups.written():
                rows = _sorted(groups.read(group))
                out.write_table(rows, row_group_size=GROUP_ROWS)
                columns.append(rows.select(list(COLUMNS)))
    folder.store.write_atomic(folder.results, buf.getvalue())
    del buf
    small = pa.concat_tables(columns) if columns else schema.empty_table().select(list(COLUMNS))
    fs, path = folder.store.pyarrow_filesystem(folder.results)
    return ResultTable(small, pq.ParquetFile(fs.open_input_file(path))), duplicates


def _kept_batches(folder: RunFolder, urls: Sequence[str],
                  kept: Sequence[tuple[list[int], list[int]]]) -> Iterator[pa.Table]:
    """The kept rows of the shards, ``_SCATTER_SHARDS`` shards at a time, each batch one table
    with its position column: a cast, a take and a bucket write cost per call more than per row
    (shard by shard, 1570 of each at 100k rows)."""
    batch: list[tuple[pa.Table, list[int], list[int]]] = []
    for table, (rows, positions) in zip(_stream(folder, urls, None), kept, strict=True):
        if rows:
            batch.append((conformed(table), rows, positions))
        if len(batch) == _SCATTER_SHARDS:
            yield _in_position_order(batch)
            batch = []
    if batch:
        yield _in_position_order(batch)


def _in_position_order(batch: Sequence[tuple[pa.Table, list[int], list[int]]]) -> pa.Table:
    """The kept rows of a few shards (each with its kept rows and their positions) as one table
    in position order, with the position column: one take, and the groups' scatter needs none."""
    offsets = [0, *itertools.accumulate(table.num_rows for table, _, _ in batch)][:-1]  # each shard's first row
    rows = np.concatenate([np.asarray(kept, np.int64) + offset
                           for (_, kept, _), offset in zip(batch, offsets, strict=True)])
    positions = np.concatenate([np.asarray(placed, np.int64) for _, _, placed in batch])
    order = np.argsort(positions)
    table = pa.concat_tables([table for table, _, _ in batch]).take(pa.array(rows[order]))
    return table.append_column(_POSITION, pa.array(positions[order]))


def _sorted(table: pa.Table) -> pa.Table:
    """``table`` in the order of its position column, without it."""
    return table.take(pc.sort_indices(table.column(_POSITION))).drop_columns([_POSITION])


def read_rows(folder: RunFolder) -> tuple[list[ResultRow], int]:
    """All result rows as models, one per row id (sorted), and how many duplicates were dropped
    (``compare``'s pages; the reduction reads columns, see ``compact_results``)."""
    urls = folder.store.list_files(folder.shards, SHARD_SUFFIX, recursive=False)
    kept, duplicates = _placement(folder, urls)
    placed: list[tuple[int, ResultRow]] = []
    for table, (rows, positions) in zip(_stream(folder, urls, None), kept, strict=True):
        if rows:
            chosen = conformed(table).take(pa.array(rows, pa.int64()))
            placed += zip(positions, table_to_rows(chosen), strict=True)
    return [row for _, row in sorted(placed, key=lambda p: p[0])], duplicates
