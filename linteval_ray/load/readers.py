"""Raw rows out of one JSONL or Parquet file, streamed: nothing is validated here.

Reading goes through pyarrow filesystems (see ``linteval_ray.store``): one code
path for local, s3://, gs:// and hf://, and pyarrow decompresses .gz, .bz2, .zst,
.lz4 and .br by extension without extra packages.
"""

from __future__ import annotations

import hashlib
import io
import json
import threading
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import Future
from typing import Any, Literal, NamedTuple

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq
from pydantic import BaseModel, Field

from linteval_ray.config import StorageConfig
from linteval_ray.load.errors import MalformedRow, SourceError
from linteval_ray.store import DEFAULT_RETRY, ObjectStore, RetryPolicy, StorageError

Format = Literal["jsonl", "parquet"]
Row = tuple[int, dict[str, Any] | MalformedRow]

COMPRESSION_SUFFIXES = (".gz", ".bz2", ".zst", ".lz4", ".br")
_FORMAT_BY_SUFFIX: dict[str, Format] = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
}
_READ_BUFFER = 1 << 20
_PARQUET_BATCH_ROWS = 256
_STREAM_BUFFER = 1 << 20  # bytes read at once from a column chunk when columns are chosen


def detect_format(url: str) -> Format:
    """``jsonl`` or ``parquet`` from the file name, looking past a compression suffix."""
    name = url.rsplit("/", 1)[-1].lower()
    compressed = name.endswith(COMPRESSION_SUFFIXES)
    if compressed:
        name = name.rsplit(".", 1)[0]
    for suffix, fmt in _FORMAT_BY_SUFFIX.items():
        if name.endswith(suffix):
            if fmt == "parquet" and compressed:
                raise SourceError(f"{url}: Parquet compresses internally; remove the outer compression")
            return fmt
    raise SourceError(f"{url}: unknown format (expected .jsonl, .ndjson, .json or .parquet, optionally .gz/.zst)")


def iter_rows(
    url: str, storage: StorageConfig | None = None, *, retry: RetryPolicy = DEFAULT_RETRY,
    columns: Sequence[str] | None = None,
) -> Generator[Row, None, None]:
    """Yield ``(row_number, dict)`` per row, or ``(row_number, MalformedRow)`` for an unparsable one.
    ``columns``: of a Parquet file, read only those (``parquet_rows``); a JSONL line is parsed whole."""
    fmt = detect_format(url)
    fs, path = source_filesystem(url, storage, retry)
    if fmt == "jsonl":
        yield from _iter_jsonl(url, fs, path)
    else:
        yield from _iter_parquet(url, fs, path, columns)


def iter_jsonl_lines(
    url: str, storage: StorageConfig | None = None, *, retry: RetryPolicy = DEFAULT_RETRY
) -> Generator[tuple[int, bytes], None, None]:
    """Yield ``(row_number, line)`` per non-blank line of a JSONL source, undecoded: for a reader
    that decodes only the fields it needs (``parse_json_object`` decodes a line as ``iter_rows``)."""
    fs, path = source_filesystem(url, storage, retry)
    with opened(url, lambda: fs.open_input_stream(path, compression="detect")) as raw:
        yield from jsonl_lines(url, raw)


def source_filesystem(url: str, storage: StorageConfig | None, retry: RetryPolicy) -> tuple[pafs.FileSystem, str]:
    """The pyarrow filesystem of ``url`` and the path in it (a ``SourceError`` when it cannot be served)."""
    try:
        return ObjectStore(storage=storage, retry=retry).pyarrow_filesystem(url)
    except StorageError as exc:
        raise SourceError(str(exc)) from exc


def _iter_jsonl(url: str, fs: pafs.FileSystem, path: str) -> Iterator[Row]:
    with opened(url, lambda: fs.open_input_stream(path, compression="detect")) as raw:
        yield from jsonl_rows(url, raw)


def _iter_parquet(url: str, fs: pafs.FileSystem, path: str, columns: Sequence[str] | None) -> Iterator[Row]:
    with opened(url, lambda: fs.open_input_file(path)) as raw:
        yield from parquet_rows(url, raw, columns)


def jsonl_rows(url: str, raw: pa.NativeFile) -> Iterator[Row]:
    """The rows of an opened (decompressing) JSONL stream, numbered by line."""
    for row_number, line in jsonl_lines(url, raw):
        yield row_number, parse_json_object(row_number, line)


def jsonl_lines(url: str, raw: pa.NativeFile) -> Iterator[tuple[int, bytes]]:
    """The non-blank lines of an opened (decompressing) JSONL stream, numbered by line."""
    # Line by line: a 200 MB file never sits in memory as text next to its records.
    lines = io.BufferedReader(raw, _READ_BUFFER)
    row_number = 0
    while True:
        line = _read_line(url, lines, row_number)
        if not line:
            return
        row_number += 1
        if line.strip():
            yield row_number, line


def parquet_rows(url: str, raw: pa.NativeFile, columns: Sequence[str] | None = None) -> Iterator[Row]:
    """The rows of an opened (random-access) Parquet file, numbered from 1. ``columns``: read only
    those the file has, a row at a time, its column chunks streamed in buffered pieces (a row group
    of large rows never sits in memory whole; the other columns are never read)."""
    try:
        parquet = pq.ParquetFile(raw) if columns is None else pq.ParquetFile(
            raw, pre_buffer=False, buffer_size=_STREAM_BUFFER)
    except Exception as exc:  # pyarrow raises ArrowInvalid and friends
        raise SourceError(f"cannot read {url} as Parquet: {exc}") from exc
    present = None if columns is None else [c for c in columns if c in parquet.schema_arrow.names]
    row_number = 0
    for batch in _batches(url, parquet, present):
        for row in batch.to_pylist():
            row_number += 1
            yield row_number, row


def _batches(url: str, parquet: pq.ParquetFile, columns: list[str] | None = None) -> Iterator[pa.RecordBatch]:
    batches = parquet.iter_batches(batch_size=_PARQUET_BATCH_ROWS if columns is None else 1, columns=columns,
                                   use_threads=False)
    while True:
        try:
            batch = next(batches)
        except StopIteration:
            return
        except Exception as exc:
            raise SourceError(f"reading {url} failed: {type(exc).__name__}: {exc}") from exc
        yield batch


def opened(url: str, opener: Callable[[], pa.NativeFile]) -> pa.NativeFile:
    """``opener()``, its failures as a ``SourceError`` naming ``url``."""
    try:
        return opener()
    except FileNotFoundError as exc:
        raise SourceError(f"cannot open {url}: no such file") from exc
    except Exception as exc:  # network, auth, DNS: whatever the backend raises
        raise SourceError(f"cannot open {url}: {type(exc).__name__}: {exc}") from exc


def _read_line(url: str, lines: io.BufferedReader, rows_so_far: int) -> bytes:
    try:
        return lines.readline()
    except Exception as exc:
        raise SourceError(f"reading {url} failed after row {rows_so_far}: {type(exc).__name__}: {exc}") from exc


def parse_json_object(row_number: int, line: bytes) -> dict[str, Any] | MalformedRow:
    try:
        value = json.loads(line)
    except UnicodeDecodeError as exc:
        return MalformedRow(row_number=row_number, message=f"not valid UTF-8: {exc.reason} at byte {exc.start}")
    except json.JSONDecodeError as exc:
        return MalformedRow(row_number=row_number, message=f"invalid JSON: {exc.msg} at column {exc.colno}")
    if not isinstance(value, dict):
        return MalformedRow(row_number=row_number, message=f"expected a JSON object, got {_json_type(value)}")
    return value


def _json_type(value: Any) -> str:
    names = {list: "an array", str: "a string", bool: "a boolean", int: "a number", float: "a number"}
    return "null" if value is None else names.get(type(value), type(value).__name__)


CONTENT_HASHED = "the split's content (JSONL after decompression, Parquet as stored)"


class SourceDigest(BaseModel):
    """What the driver learns of a split without holding it: a hash that identifies its data, what
    that hash covers, and its row count."""

    sha256: str
    rows: int | None  # JSONL lines (a blank line counts), Parquet rows: for progress, not for scores; None: unknown
    hashed: str = Field(default=CONTENT_HASHED, description="what sha256 covers (recorded in the manifest)")
    files: list[dict[str, Any]] = Field(
        default_factory=list, description="per file read, what identified it (stated hashes, sizes, footers)")


def source_digest(url: str, storage: StorageConfig | None = None, *, retry: RetryPolicy = DEFAULT_RETRY,
                  ) -> SourceDigest:
    """sha256 of the split's content, streamed in chunks (never held whole): JSONL after
    decompression (the same rows gzipped or not hash alike), Parquet as stored; and its rows.
    Opening and reading the whole source here also makes a missing or corrupt source fail
    before any work."""
    return _digest(_open_source(url, storage, retry))


def digest_in_background(url: str, storage: StorageConfig | None = None, *, retry: RetryPolicy = DEFAULT_RETRY,
                         ) -> Future[SourceDigest]:
    """``source_digest``, its hashing on a thread of its own: the source is opened here (a
    missing one fails at once), its bytes are read and hashed while the caller goes on. The
    driver starts Ray meanwhile: hashing takes ~1 s per GB, so the time to the first row does
    not grow with the split until it is several GB."""
    source = _open_source(url, storage, retry)
    future: Future[SourceDigest] = Future()

    def digest() -> None:
        try:
            future.set_result(_digest(source))
        except BaseException as exc:  # noqa: BLE001 -- handed to whoever waits for the digest
            future.set_exception(exc)

    # A daemon: a driver failing meanwhile exits without waiting for the hash.
    threading.Thread(target=digest, name="linteval-source-digest", daemon=True).start()
    return future


class _OpenSource(NamedTuple):
    url: str
    fmt: Format
    fs: pafs.FileSystem
    path: str
    raw: pa.NativeFile  # JSONL decompressed, Parquet as stored


def _open_source(url: str, storage: StorageConfig | None, retry: RetryPolicy) -> _OpenSource:
    fmt = detect_format(url)
    fs, path = source_filesystem(url, storage, retry)
    raw = opened(url, lambda: fs.open_input_stream(path, compression="detect" if fmt == "jsonl" else None))
    return _OpenSource(url, fmt, fs, path, raw)


def _digest(source: _OpenSource) -> SourceDigest:
    url, fmt, fs, path, raw = source
    digest = hashlib.sha256()
    lines, last = 0, b"\n"
    with raw:
        while True:
            try:
                chunk = raw.read(_READ_BUFFER)
            except Exception as exc:
                raise SourceError(f"reading {url} failed: {type(exc).__name__}: {exc}") from exc
            if not chunk:
                break
            digest.update(chunk)
            lines += chunk.count(b"\n")
            last = chunk[-1:]
    if fmt == "parquet":
        with opened(url, lambda: fs.open_input_file(path)) as f:
            rows = pq.ParquetFile(f).metadata.num_rows
    else:
        rows = lines + (last != b"\n")
    return SourceDigest(sha256=digest.hexdigest(), rows=rows)
