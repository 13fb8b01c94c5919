"""How the results browser's data is cut and encoded: rows in chunks by a hash of the sample id,
chunks in ranges of about ``RANGE_ROWS`` rows, every file JSON that is safe inside a script.

Sample pages load one chunk of ~``ROWS_PER_CHUNK`` rows whatever the run's size: ``chunk_of`` here
and ``LintEval.chunkOf`` in ``assets/site.js`` are the same function of the id.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from linteval_ray.schema.record import to_unicode

ROWS_PER_CHUNK = 64
# Rows (as Arrow) read back at once from their temporary file: chunks are hashes of ids, so one
# pass over results.parquet routes every row to its range's file; bigger ranges, more memory.
RANGE_ROWS = 4096


def chunk_count(rows: int) -> int:
    return max(1, math.ceil(rows / ROWS_PER_CHUNK))


def chunk_of(sample_id: str, chunks: int) -> int:
    """FNV-1a (32 bit) of the id's UTF-8 bytes, modulo ``chunks``; ``LintEval.chunkOf`` in site.js
    is the same function, so a sample page finds its chunk from the id alone. Draws of a sample
    share a chunk (and its original program)."""
    digest = 0x811C9DC5
    for byte in to_unicode(sample_id).encode():  # lone surrogates -> U+FFFD, as TextEncoder does
        digest = ((digest ^ byte) * 0x01000193) & 0xFFFFFFFF
    return digest % chunks


def chunks_of(sample_ids: pa.ChunkedArray, chunks: int) -> npt.NDArray[np.int64]:
    """``chunk_of`` of every id of a string column, computed on its UTF-8 bytes over all the ids at
    once (one step per byte position), not id by id in Python (~0.3 s at 100k rows)."""
    ids = sample_ids.combine_chunks()
    if not pa.types.is_string(ids.type) or ids.null_count:
        raise TypeError(f"sample ids must be non-null strings, not {ids.type}")
    offsets = np.frombuffer(ids.buffers()[1], np.int32)[ids.offset:ids.offset + len(ids) + 1].astype(np.int64)
    data = np.frombuffer(ids.buffers()[2] or b"", np.uint8)
    starts, lengths = offsets[:-1], np.diff(offsets)
    digest = np.full(len(ids), 0x811C9DC5, np.uint64)  # < 2**32, so digest * prime never overflows
    for position in range(int(lengths.max(initial=0))):
        live = lengths > position
        byte = data[starts[live] + position].astype(np.uint64)
        digest[live] = ((digest[live] ^ byte) * np.uint64(0x01000193)) & np.uint64(0xFFFFFFFF)
    return (digest % np.uint64(chunks)).astype(np.int64)


def safe_json(value: Any) -> str:
    """JSON with only ASCII and no ``<``: safe inside a script, whatever the text."""
    return json.dumps(value, ensure_ascii=True, separators=(",", ":")).replace("<", "\\u003c")


def js_assignment(target: str, value: Any) -> bytes:
    """``target = <value as safe JSON>;``"""
    return f"{target} = {safe_json(value)};\n".encode()


def rows_by_chunk(chunk_of_row: npt.NDArray[np.int64], chunks: int) -> list[list[int]]:
    """The row indices of each chunk (``chunk_of_row[index]``), in the table's order."""
    order = np.argsort(chunk_of_row, kind="stable")
    ends = np.searchsorted(chunk_of_row[order], np.arange(1, chunks + 1))
    return [part.tolist() for part in np.split(order, ends[:-1])]


def chunk_ranges(members: Sequence[Sequence[int]]) -> list[tuple[int, int]]:
    """Consecutive chunks ``[first, last)`` of about ``RANGE_ROWS`` rows together."""
    ranges, first, rows = [], 0, 0
    for k, indices in enumerate(members):
        rows += len(indices)
        if rows >= RANGE_ROWS:
            ranges.append((first, k + 1))
            first, rows = k + 1, 0
    if first < len(members):
        ranges.append((first, len(members)))
    return ranges


def range_of_rows(members: Sequence[Sequence[int]], ranges: Sequence[tuple[int, int]], rows: int) -> list[int]:
    """Each row's range (its number in ``ranges``), by row index."""
    range_of = [0] * rows
    for number, (first, last) in enumerate(ranges):
        for k in range(first, last):
            for index in members[k]:
                range_of[index] = number
    return range_of


class IndexLines:
    """Each row's line of ``data/index.js`` (ASCII JSON), kept as one bytes object per range of
    chunks and each line's place in it. A small object per row kept across the ranges pinned
    pymalloc's pools (freed only when every block is) among each range's freed rows: the RSS grew
    by ~60 MB at 100k rows beyond the lines themselves."""

    def __init__(self, rows: int) -> None:
        self._blobs: list[bytes] = []
        self._blob = np.zeros(rows, np.int64)  # by row index: its blob, and its line's bytes in it
        self._start = np.zeros(rows, np.int64)
        self._end = np.zeros(rows, np.int64)

    def add(self, lines: Mapping[int, str]) -> None:
        """The lines of one range, by row index."""
        parts = [line.encode() for line in lines.values()]
        lengths = np.fromiter(map(len, parts), np.int64, len(parts))
        indices = np.fromiter(lines.keys(), np.int64, len(lines))
        self._blob[indices] = len(self._blobs)
        self._end[indices] = np.cumsum(lengths)
        self._start[indices] = self._end[indices] - lengths
        self._blobs.append(b"".join(parts))

    def joined(self, head: bytes, tail: bytes) -> bytearray:
        """``head``, every row's line in row order separated by commas, ``tail``."""
        views = [memoryview(blob) for blob in self._blobs]
        out = bytearray(head)
        for index, (blob, start, end) in enumerate(zip(self._blob, self._start, self._end, strict=True)):
            if index:
                out += b","
            out += views[blob][start:end]
        out += tail
        return out
