"""A split as files, and its columns, learned without reading a row.

A split URL names one file or, with a glob (``data/test-*.parquet``), several: a split of a
Hugging Face dataset is the files of its folder matching its pattern. Its columns come from a
Parquet footer, or from the keys of the first JSONL line, scanned as it streams by (a line of
gigabytes is never held), so the driver learns which task a split holds without holding a row.
"""

from __future__ import annotations

import glob as globbing
import re

from linteval_ray.load.errors import SourceError
from linteval_ray.load.readers import Format, detect_format, opened, source_filesystem
from linteval_ray.store import DEFAULT_RETRY, ObjectStore, RetryPolicy
from linteval_ray.store.fs import scheme_of

_SCAN_CHUNK = 1 << 16
_KEY_CAP = 256  # characters of a depth-1 string kept while it may be a key (a value may be gigabytes)


def split_files(url: str, store: ObjectStore) -> list[str]:
    """The files of the split at ``url``, sorted: the URL itself, or the matches of its glob
    (``SourceError`` when a glob matches nothing)."""
    if not globbing.has_magic(url):
        return [url]
    try:
        fs, path = store.filesystem(url)
        matches = sorted(str(match) for match in fs.glob(path))
    except Exception as exc:
        raise SourceError(f"cannot list {url}: {type(exc).__name__}: {exc}") from exc
    if not matches:
        raise SourceError(f"{url}: no file matches")
    keep = scheme_of(url) != ""
    return [fs.unstrip_protocol(match) if keep else match for match in matches]


def split_columns(url: str, store: ObjectStore, retry: RetryPolicy = DEFAULT_RETRY) -> frozenset[str]:
    """The top-level field names of the split's first file (a Parquet schema; a JSONL file's
    first line), never reading a row whole."""
    first = split_files(url, store)[0]
    fmt: Format = detect_format(first)
    fs, path = source_filesystem(first, store.storage, retry)
    if fmt == "parquet":
        import pyarrow.parquet as pq

        with opened(first, lambda: fs.open_input_file(path)) as raw:
            try:
                return frozenset(pq.ParquetFile(raw).schema_arrow.names)
            except Exception as exc:  # pyarrow raises ArrowInvalid and friends
                raise SourceError(f"cannot read {first} as Parquet: {exc}") from exc
    with opened(first, lambda: fs.open_input_stream(path, compression="detect")) as raw:
        return frozenset(_first_line_keys(first, raw))


def _first_line_keys(url: str, raw: object) -> list[str]:
    """The keys of the JSON object on the first non-blank line, scanned in chunks: strings at
    depth 1 followed by ``:``."""
    scanner = _KeyScanner()
    while True:
        try:
            chunk = raw.read(_SCAN_CHUNK)  # type: ignore[attr-defined]  # a pyarrow NativeFile
        except Exception as exc:
            raise SourceError(f"reading {url} failed: {type(exc).__name__}: {exc}") from exc
        if not chunk or scanner.feed(chunk.decode("utf-8", "replace")):
            return scanner.keys


class _KeyScanner:
    """A JSON object's top-level keys from its text in pieces (strings, escapes and nesting tracked),
    jumping over string contents and values with regular expressions: a 100 MB statement costs a
    few scans in C, not a Python step per character."""

    _IN_STRING = re.compile(r'["\\]')
    _OUTSIDE = re.compile(r'["{}\[\]:\n]')

    def __init__(self) -> None:
        self.keys: list[str] = []
        self._depth = 0
        self._in_string = False
        self._escaped = False
        self._text: list[str] = []
        self._kept = 0
        self._pending: str | None = None  # a depth-1 string that is a key if ':' follows

    def feed(self, text: str) -> bool:
        """Scan ``text``; True once the first object (or line) has ended."""
        i = 0
        while i < len(text):
            if self._in_string:
                i = self._string(text, i)
                continue
            found = self._OUTSIDE.search(text, i)
            end = found.start() if found else len(text)
            if text[i:end].strip():
                self._pending = None  # a value, not the key's colon, follows the string
            if found is None:
                return False
            char, i = text[end], end + 1
            if char == '"':
                self._in_string, self._text, self._kept = True, [], 0
            elif char in "{[":
                self._depth, self._pending = self._depth + 1, None
            elif char in "}]":
                self._depth -= 1
                if self._depth <= 0:
                    return True
            elif char == ":" and self._pending is not None:
                self.keys.append(self._pending)
                self._pending = None
            elif char == "\n" and self._depth == 0 and self.keys:
                return True
        return False

    def _string(self, text: str, i: int) -> int:
        """Scan inside a string from ``i``; the position after what was consumed."""
        if self._escaped:
            self._escaped = False
            self._keep(text[i])
            return i + 1
        found = self._IN_STRING.search(text, i)
        end = found.start() if found else len(text)
        self._keep(text[i:end])
        if found is None:
            return end
        if text[end] == "\\":
            self._escaped = True
            return end + 1
        self._in_string = False
        self._pending = "".join(self._text) if self._depth == 1 and self._kept <= _KEY_CAP else None
        return end + 1

    def _keep(self, piece: str) -> None:
        if self._depth == 1 and self._kept <= _KEY_CAP:
            self._text.append(piece[:_KEY_CAP + 1])
        self._kept += len(piece)
