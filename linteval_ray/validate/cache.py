"""Content-addressed cache for model-independent validation work.

Compiled problem tools, generated tests, reference answers and compiled originals
are a pure function of their sources, the toolchain and the flags/limits used. We
key them by the sha256 of a canonical JSON of exactly those inputs, so a second
evaluation of a problem (another sample, another model, another node) reuses them.

Two tiers:
- a node-local directory: binaries must sit on a local disk to be executed (and
  mounted into the sandbox), and it is the fast path;
- an optional shared tier (``s3://...`` or a folder, through the run's ``ObjectStore``)
  that nodes fill for each other: JSON values as ``<key>.json`` and directories as
  ``<key>.tar``, each written atomically (fsynced rename locally, one PUT on S3). A run on
  object storage uses ``<parent of the run>/linteval-cache`` unless configured.

Every local write is atomic (temp + rename); two writers of one key write the same
content, so whichever rename wins is correct and the loser discards its copy.

Single flight for testlib tools (kind ``tool``): the first actor to miss a key claims it
(an exclusive create of ``<key>.claim`` in the shared tier, else in the local folder) and
builds; others that miss it meanwhile wait for its value instead of compiling it again.
A claim older than ``CLAIM_WAIT_S`` (its builder died or was interrupted) is ignored.
Only tools: every finished tool compile stores a value (failures too), so a waiter never
waits for something that will not come; other kinds may be built twice when two actors
miss them at once (same content, so still correct).
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
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, Field

from linteval_ray.store.fs import ObjectStore, join

log = logging.getLogger(__name__)

_V = TypeVar("_V")

SINGLE_FLIGHT_KINDS = frozenset({"tool"})
CLAIM_WAIT_S = 180.0  # longer than a tool compile's timeout (120 s)
CLAIM_POLL_S = 0.25


def default_cache_dir() -> Path:
    """The node-local folder of linteval-ray: this cache's local tier and our own compiled helpers."""
    return Path(os.environ.get("LINTEVAL_CACHE_DIR", Path.home() / ".cache" / "linteval-ray"))


class KindStats(BaseModel):
    """One kind's lookups: a miss is a build (a compile, a test generation, a lint...)."""

    hits: int = 0
    misses: int = 0
    puts: int = 0
    waits: int = 0  # misses served by another actor's build (single flight)


class CacheStats(BaseModel):
    """Lookup counters (read by tests, the benchmark and the run manifest)."""

    hits: int = 0
    misses: int = 0
    local_hits: int = 0
    shared_hits: int = 0
    puts: int = 0
    by_kind: dict[str, KindStats] = Field(default_factory=dict, description="key kind -> its counters")


def kind_of(key: str) -> str:
    """The kind a key was made for (``tool``, ``tests``, ``reference``, ``lint``, ...)."""
    return key.rsplit("-", 1)[0]


class ContentCache:
    """Two-tier content-addressed store: ``key(...)`` → JSON values and directories."""

    def __init__(self, url: str | None, local_dir: Path, store: ObjectStore | None = None) -> None:
        self.local_dir = Path(local_dir)
        self.local_dir.mkdir(parents=True, exist_ok=True)
        # The sandbox uid mounts cached directories: every level must be traversable.
        _make_world_readable(self.local_dir)
        self.url = url.rstrip("/") if url else None
        self._store = store or ObjectStore()
        self.stats = CacheStats()
        self._lock = threading.Lock()
        self._owner = f"{os.uname().nodename}:{os.getpid()}:{uuid.uuid4().hex[:8]}"

    @staticmethod
    def key(kind: str, **parts: Any) -> str:
        """sha256 of the canonical JSON of ``kind`` and ``parts`` (everything the value depends on)."""
        canonical = json.dumps({"kind": kind, **parts}, sort_keys=True, separators=(",", ":"), default=str)
        return f"{kind}-{hashlib.sha256(canonical.encode()).hexdigest()}"

    # -- JSON values -----------------------------------------------------------------------------

    def get_json(self, key: str) -> Any | None:
        return self._single_flight(key, lambda: self._lookup_json(key))

    def _lookup_json(self, key: str) -> Any | None:
        path = self._local_path(key, ".json")
        if path.exists():
            self._count(key, hit=True, local=True)
            return json.loads(path.read_bytes())
        data = self._shared_get(key, ".json")
        if data is None:
            return None
        _atomic_write(path, data)
        self._count(key, hit=True, local=False)
        return json.loads(data)

    def put_json(self, key: str, value: Any) -> None:
        data = json.dumps(value, sort_keys=True).encode()
        _atomic_write(self._local_path(key, ".json"), data)
        self._shared_put(key, ".json", data)
        self._count_put(key)

    # -- directories -----------------------------------------------------------------------------

    def get_dir(self, key: str) -> Path | None:
        """The local directory stored under ``key`` (fetched from the shared tier if needed)."""
        return self._single_flight(key, lambda: self._lookup_dir(key))

    def _lookup_dir(self, key: str) -> Path | None:
        path = self._local_path(key, "")
        if path.is_dir():
            self._count(key, hit=True, local=True)
            return path
        data = self._shared_get(key, ".tar")
        if data is None:
            return None
        staging = self._staging_dir(path)
        try:
            with tarfile.open(fileobj=io.BytesIO(data)) as tar:
                tar.extractall(staging, filter="data")  # "data": no absolute paths, no escapes
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        result = self._publish_dir(staging, path)
        self._count(key, hit=True, local=False)
        return result

    def contains_dir(self, key: str) -> bool:
        """Whether a directory is stored under ``key`` in either tier (nothing is fetched or counted)."""
        if self._local_path(key, "").is_dir():
            return True
        return self.url is not None and self._store.exists(self._shared_url(key, ".tar"))

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
        if self.url is not None:
            buf = io.BytesIO()
            with tarfile.open(fileobj=buf, mode="w") as tar:
                tar.add(result, arcname=".")
            self._shared_put(key, ".tar", buf.getvalue())
        self._count_put(key)
        return result

    # -- single flight ---------------------------------------------------------------------------

    def _single_flight(self, key: str, lookup: Callable[[], _V | None]) -> _V | None:
        """``lookup()``; on a miss of a single-flight kind, claim the build or wait for the
        claimer's value. ``None`` means: this caller builds (and puts) the value."""
        value = lookup()
        if value is not None:
            return value
        if kind_of(key) in SINGLE_FLIGHT_KINDS and not self._claim(key):
            value = self._wait_for(key, lookup)
            if value is not None:
                return value
        self._count(key, hit=False)
        return None

    def _claim_url(self, key: str) -> str:
        root = self.url if self.url is not None else str(self.local_dir)
        return join(root, "claims", key[-2:], f"{key}.claim")

    def _claim(self, key: str) -> bool:
        """True: this process builds ``key`` (its claim is new or its own, or the other is stale)."""
        url = self._claim_url(key)
        if self._store.create_exclusive(url, json.dumps({"owner": self._owner, "at": time.time()}).encode()):
            return True
        owner, age = self._claim_of(url)
        return owner == self._owner or age > CLAIM_WAIT_S

    def _claim_of(self, url: str) -> tuple[str | None, float]:
        """(owner, age in seconds) of a claim; an unreadable one counts as stale."""
        data = self._store.read_if_exists(url)
        if data is None:
            return None, 0.0
        try:
            claim = json.loads(data)
            return str(claim["owner"]), time.time() - float(claim["at"])
        except (ValueError, KeyError, TypeError):
            return None, CLAIM_WAIT_S + 1

    def _wait_for(self, key: str, lookup: Callable[[], _V | None]) -> _V | None:
        deadline = time.monotonic() + max(0.0, CLAIM_WAIT_S - self._claim_of(self._claim_url(key))[1])
        while time.monotonic() < deadline:
            time.sleep(CLAIM_POLL_S)
            value = lookup()
            if value is not None:
                self._count_wait(key)
                return value
        log.warning("cache key %s: its builder's claim expired; building it here", key)
        return None

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

    def _shared_url(self, key: str, suffix: str) -> str:
        assert self.url is not None
        return join(self.url, key[-2:], f"{key}{suffix}")

    def _shared_get(self, key: str, suffix: str) -> bytes | None:
        if self.url is None:
            return None
        return self._store.read_if_exists(self._shared_url(key, suffix))

    def _shared_put(self, key: str, suffix: str, data: bytes) -> None:
        if self.url is not None:
            self._store.write_atomic(self._shared_url(key, suffix), data)

    def _kind(self, key: str) -> KindStats:
        return self.stats.by_kind.setdefault(kind_of(key), KindStats())

    def _count(self, key: str, *, hit: bool, local: bool = True) -> None:
        with self._lock:
            kind = self._kind(key)
            if not hit:
                self.stats.misses += 1
                kind.misses += 1
                return
            self.stats.hits += 1
            kind.hits += 1
            if local:
                self.stats.local_hits += 1
            else:
                self.stats.shared_hits += 1

    def _count_put(self, key: str) -> None:
        with self._lock:
            self.stats.puts += 1
            self._kind(key).puts += 1

    def _count_wait(self, key: str) -> None:
        with self._lock:
            self._kind(key).waits += 1

    def stats_snapshot(self) -> CacheStats:
        with self._lock:
            return self.stats.model_copy(deep=True)


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
