"""Content-addressed cache for model-independent validation work.

Compiled problem tools, generated tests, reference answers and compiled originals
are a pure function of their sources, the toolchain and the flags/limits used. We
key them by the sha256 of a canonical JSON of exactly those inputs, so a second
evaluation of a problem (another sample, another model, another node) reuses them.

Two tiers:
- a node-local directory: binaries must sit on a local disk to be executed (and
  mounted into the sandbox), and it is the fast path;
- an optional shared fsspec store (``s3://...`` or a folder) that nodes fill for each
  other: JSON values as ``<key>.json`` and directories as ``<key>.tar``.

Every local write is atomic (temp + rename); two writers of one key write the same
content, so whichever rename wins is correct and the loser discards its copy.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import shutil
import stat
import tarfile
import tempfile
import threading
import uuid
from pathlib import Path
from typing import Any

import fsspec
from fsspec.implementations.local import LocalFileSystem
from pydantic import BaseModel

log = logging.getLogger(__name__)


class CacheStats(BaseModel):
    """Lookup counters (read by tests and the benchmark)."""

    hits: int = 0
    misses: int = 0
    local_hits: int = 0
    shared_hits: int = 0
    puts: int = 0


class ContentCache:
    """Two-tier content-addressed store: ``key(...)`` → JSON values and directories."""

    def __init__(self, url: str | None, local_dir: Path, storage_options: dict[str, Any] | None = None) -> None:
        self.local_dir = Path(local_dir)
        self.local_dir.mkdir(parents=True, exist_ok=True)
        # The sandbox uid mounts cached directories: every level must be traversable.
        _make_world_readable(self.local_dir)
        self.url = url
        self._shared: fsspec.AbstractFileSystem | None = None
        self._shared_root = ""
        if url:
            self._shared, self._shared_root = fsspec.core.url_to_fs(url, **(storage_options or {}))
        self.stats = CacheStats()
        self._lock = threading.Lock()

    @staticmethod
    def key(kind: str, **parts: Any) -> str:
        """sha256 of the canonical JSON of ``kind`` and ``parts`` (everything the value depends on)."""
        canonical = json.dumps({"kind": kind, **parts}, sort_keys=True, separators=(",", ":"), default=str)
        return f"{kind}-{hashlib.sha256(canonical.encode()).hexdigest()}"

    # -- JSON values -----------------------------------------------------------------------------

    def get_json(self, key: str) -> Any | None:
        path = self._local_path(key, ".json")
        if path.exists():
            self._count(hit=True, local=True)
            return json.loads(path.read_bytes())
        data = self._shared_get(key, ".json")
        if data is None:
            self._count(hit=False)
            return None
        _atomic_write(path, data)
        self._count(hit=True, local=False)
        return json.loads(data)

    def put_json(self, key: str, value: Any) -> None:
        data = json.dumps(value, sort_keys=True).encode()
        _atomic_write(self._local_path(key, ".json"), data)
        self._shared_put(key, ".json", data)
        self._count_put()

    # -- directories -----------------------------------------------------------------------------

    def get_dir(self, key: str) -> Path | None:
        """The local directory stored under ``key`` (fetched from the shared tier if needed)."""
        path = self._local_path(key, "")
        if path.is_dir():
            self._count(hit=True, local=True)
            return path
        data = self._shared_get(key, ".tar")
        if data is None:
            self._count(hit=False)
            return None
        staging = self._staging_dir(path)
        try:
            with tarfile.open(fileobj=io.BytesIO(data)) as tar:
                tar.extractall(staging, filter="data")  # "data": no absolute paths, no escapes
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        result = self._publish_dir(staging, path)
        self._count(hit=True, local=False)
        return result

    def put_dir(self, key: str, src: Path) -> Path:
        """Copy ``src`` into the cache under ``key``; returns the cached (read-only use) directory."""
        path = self._local_path(key, "")
        staging = self._staging_dir(path)
        try:
            shutil.copytree(src, staging, dirs_exist_ok=True, symlinks=False)
        except BaseException:  # e.g. a full disk: leave no half-copied staging dir behind
            shutil.rmtree(staging, ignore_errors=True)
            raise
        result = self._publish_dir(staging, path)
        if self._shared is not None:
            buf = io.BytesIO()
            with tarfile.open(fileobj=buf, mode="w") as tar:
                tar.add(result, arcname=".")
            self._shared_put(key, ".tar", buf.getvalue())
        self._count_put()
        return result

    # -- internals -------------------------------------------------------------------------------

    def _local_path(self, key: str, suffix: str) -> Path:
        return self.local_dir / key[-2:] / f"{key}{suffix}"

    def _staging_dir(self, final: Path) -> Path:
        final.parent.mkdir(parents=True, exist_ok=True)
        _make_world_readable(final.parent)
        return final.parent / f".tmp-{final.name}-{uuid.uuid4().hex}"

    @staticmethod
    def _publish_dir(staging: Path, final: Path) -> Path:
        _make_tree_world_readable(staging)
        try:
            os.rename(staging, final)
        except OSError:
            # Another writer published the same key first: its content is identical.
            shutil.rmtree(staging, ignore_errors=True)
            if not final.is_dir():
                raise
        return final

    def _shared_path(self, key: str, suffix: str) -> str:
        return f"{self._shared_root.rstrip('/')}/{key[-2:]}/{key}{suffix}"

    def _shared_get(self, key: str, suffix: str) -> bytes | None:
        if self._shared is None:
            return None
        try:
            data: bytes = self._shared.cat_file(self._shared_path(key, suffix))  # fsspec is untyped
        except FileNotFoundError:
            return None
        return data

    def _shared_put(self, key: str, suffix: str, data: bytes) -> None:
        if self._shared is None:
            return
        path = self._shared_path(key, suffix)
        if isinstance(self._shared, LocalFileSystem):
            _atomic_write(Path(path), data)  # a shared folder needs temp + rename too
        else:
            self._shared.pipe_file(path, data)  # one PUT: atomic on object stores

    def _count(self, *, hit: bool, local: bool = True) -> None:
        with self._lock:
            if not hit:
                self.stats.misses += 1
                return
            self.stats.hits += 1
            if local:
                self.stats.local_hits += 1
            else:
                self.stats.shared_hits += 1

    def _count_put(self) -> None:
        with self._lock:
            self.stats.puts += 1


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    _make_world_readable(path.parent)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".tmp-{path.name}-")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _make_world_readable(directory: Path) -> None:
    try:
        os.chmod(directory, os.stat(directory).st_mode | 0o755)
    except PermissionError:
        log.debug("cannot chmod %s", directory)


def _make_tree_world_readable(root: Path) -> None:
    """Cached entries are mounted into sandboxes that run as other uids."""
    for dirpath, _dirnames, filenames in os.walk(root):
        os.chmod(dirpath, 0o755)
        for name in filenames:
            path = os.path.join(dirpath, name)
            executable = os.stat(path).st_mode & stat.S_IXUSR
            os.chmod(path, 0o755 if executable else 0o644)
