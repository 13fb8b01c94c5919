"""A split's identity from what its store states, never from downloading and hashing it whole.

A CodeContests-O split is hundreds of gigabytes; a run's fingerprint must not cost a download.
Per file, in name order, the identity holds:

- ``size``, and the content hash the store states when it states one: the Hub's LFS ``sha256``
  (else its git ``blob_id``), an S3 ``ETag`` (with its ``VersionId``), a GCS ``md5Hash`` or
  ``crc32c``;
- for Parquet, the sha256 of its footer (schema, row groups, each column chunk's offsets, sizes
  and statistics: one ranged read of a few kilobytes) and its row count;
- for a JSONL file whose store states no hash (a local file), its content's sha256 (and its
  lines), since nothing smaller identifies it.

``sha256`` is the hash of that list (file names without their folders: the same data moved is the
same data); ``hashed`` says in words what it covers, for the manifest.
"""

from __future__ import annotations

import hashlib
import json
import struct
from collections.abc import Sequence
from typing import Any

from linteval_ray.load.errors import SourceError
from linteval_ray.load.readers import SourceDigest, detect_format, source_digest
from linteval_ray.store import ObjectStore

_PARQUET_MAGIC = b"PAR1"
_TAIL = 8  # footer length (4 bytes, little-endian) and the magic

STATED = "per file: its size, the content hash its store states (Hub LFS sha256, S3 ETag, GCS md5/crc32c), " \
         "a Parquet file's footer (sha256) and rows; a JSONL file whose store states no hash: its content (sha256)"


def stated_identity(files: Sequence[str], store: ObjectStore, side_tables: Sequence[str] = ()) -> SourceDigest:
    """The identity of the split ``files`` (and of any side table the task reads), as the module says."""
    entries = [_file_identity(url, store) for url in files]
    tables = [{**_file_identity(url, store), "side_table": True} for url in side_tables]
    rows = [entry.get("rows") for entry in entries]
    known = None if any(count is None for count in rows) else sum(int(count) for count in rows if count is not None)
    body = json.dumps({"files": entries, "side_tables": tables}, sort_keys=True).encode()
    return SourceDigest(sha256=hashlib.sha256(body).hexdigest(), rows=known, hashed=STATED, files=entries + tables)


def _file_identity(url: str, store: ObjectStore) -> dict[str, Any]:
    try:
        fs, path = store.filesystem(url)
        info = fs.info(path)
    except FileNotFoundError as exc:
        raise SourceError(f"cannot open {url}: no such file") from exc
    except Exception as exc:
        raise SourceError(f"cannot open {url}: {type(exc).__name__}: {exc}") from exc
    entry: dict[str, Any] = {"file": url.rstrip("/").rsplit("/", 1)[-1], "size": int(info.get("size") or 0)}
    stated = stated_hash(info)
    if stated:
        entry["stated"] = stated
    if detect_format(url) == "parquet":
        footer, rows = parquet_footer(url, store, entry["size"])
        entry.update(footer_sha256=hashlib.sha256(footer).hexdigest(), rows=rows)
    elif not stated:
        digest = source_digest(url, store.storage, retry=store.retry)
        entry.update(content_sha256=digest.sha256, rows=digest.rows)
    return entry


def stated_hash(info: dict[str, Any]) -> dict[str, str]:
    """The content hashes an fsspec ``info`` of a file states (Hub, S3, GCS); empty for a local file."""
    stated: dict[str, str] = {}
    lfs = info.get("lfs")
    if isinstance(lfs, dict) and lfs.get("sha256"):
        stated["lfs_sha256"] = str(lfs["sha256"])
    elif info.get("blob_id"):
        stated["git_blob"] = str(info["blob_id"])
    for key, name in (("ETag", "etag"), ("VersionId", "version"), ("md5Hash", "md5"), ("crc32c", "crc32c")):
        if info.get(key):
            stated[name] = str(info[key]).strip('"')
    return stated


def parquet_footer(url: str, store: ObjectStore, size: int) -> tuple[bytes, int]:
    """A Parquet file's footer (its metadata, with its length and magic) and its row count, from
    two ranged reads of its end."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if size < 2 * len(_PARQUET_MAGIC) + _TAIL - len(_PARQUET_MAGIC):
        raise SourceError(f"{url}: {size} bytes is too short for a Parquet file")
    fs, path = store.filesystem(url)
    try:
        tail = fs.cat_file(path, start=size - _TAIL, end=size)
        length = struct.unpack("<I", tail[:4])[0]
        if tail[4:] != _PARQUET_MAGIC or length + _TAIL > size:
            raise SourceError(f"{url}: not a Parquet file (no footer)")
        footer = bytes(fs.cat_file(path, start=size - _TAIL - length, end=size))
    except SourceError:
        raise
    except Exception as exc:
        raise SourceError(f"reading {url} failed: {type(exc).__name__}: {exc}") from exc
    try:
        rows = pq.read_metadata(pa.BufferReader(b"PAR1" + footer)).num_rows
    except Exception as exc:  # pyarrow raises ArrowInvalid and friends
        raise SourceError(f"cannot read {url} as Parquet: {exc}") from exc
    return footer, int(rows)
