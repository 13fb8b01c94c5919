"""``ObjectStore``: one place that turns a URL plus ``StorageConfig`` into reads and writes.

Every reader and writer in the pipeline goes through an ``ObjectStore``, so credentials and
retry behaviour are decided once: local paths, ``file://``, ``s3://`` (any
S3-compatible endpoint), ``gs://`` (needs gcsfs), ``hf://`` (Hugging Face Hub)
and any other protocol fsspec knows.

Explicit ``StorageConfig`` fields win; unset ones fall back to the usual AWS_*
variables (the endpoint and region are resolved here, because pyarrow needs the
endpoint's scheme; keys left unset go to the SDKs' own credential chains so
profiles and instance roles keep working).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import logging
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, ParamSpec, TypeVar
from urllib.parse import urlsplit

import fsspec
import pyarrow.fs as pafs
from botocore.exceptions import BotoCoreError
from fsspec.implementations.local import LocalFileSystem
from pydantic import BaseModel, ConfigDict, Field

from linteval_ray.config import StorageConfig
from linteval_ray.errors import LintEvalError

logger = logging.getLogger(__name__)

_P = ParamSpec("_P")
_T = TypeVar("_T")

LOCAL_SCHEMES = ("", "file", "local")
S3_SCHEMES = ("s3", "s3a")
GCS_SCHEMES = ("gs", "gcs")
# S3 answers a lost conditional create with one of these codes; SeaweedFS (and s3fs's
# error translation) surface them as OSError(EINVAL), not FileExistsError.
_CONDITIONAL_CONFLICT_CODES = ("PreconditionFailed", "ConditionalRequestConflict")


class StorageError(LintEvalError):
    """A URL cannot be served: unknown protocol, missing optional package, bad settings."""


class RetryPolicy(BaseModel):
    """How hard S3 calls try before giving up (other protocols use their library's defaults).

    The default suits real runs: botocore retries throttling, 5xx and connection
    errors with backoff, and s3fs re-issues a failed call (it also covers bodies
    cut off mid-read), riding out tens of seconds of outage. :data:`FAST_FAIL`
    suits tests and liveness probes, where a dead endpoint should fail at once.
    """

    model_config = ConfigDict(frozen=True)

    attempts: int = Field(default=5, ge=1, description="tries per request (first try included)")
    connect_timeout_s: float = Field(default=10.0, gt=0)
    read_timeout_s: float = Field(default=60.0, gt=0)


DEFAULT_RETRY = RetryPolicy()
FAST_FAIL = RetryPolicy(attempts=1, connect_timeout_s=1.0, read_timeout_s=2.0)


class S3Settings(BaseModel):
    """S3 connection settings after merging ``StorageConfig`` with the environment."""

    model_config = ConfigDict(frozen=True)

    endpoint_url: str | None = None
    key: str | None = None
    secret: str | None = None
    region: str | None = None
    anon: bool = False


def scheme_of(url: str) -> str:
    """The URL's protocol in lower case; ``""`` for a plain local path."""
    if "://" not in url:
        return ""
    return url.split("://", 1)[0].lower()


def s3_settings(storage: StorageConfig | None) -> S3Settings:
    """Merge explicit settings with AWS_ENDPOINT_URL(_S3) / AWS_REGION / AWS_DEFAULT_REGION."""
    storage = storage or StorageConfig()
    env = os.environ
    if (storage.key is None) != (storage.secret is None):
        raise StorageError("storage.key and storage.secret must be set together")
    return S3Settings(
        endpoint_url=storage.endpoint_url or env.get("AWS_ENDPOINT_URL_S3") or env.get("AWS_ENDPOINT_URL") or None,
        key=storage.key,
        secret=storage.secret,
        region=storage.region or env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or None,
        anon=storage.anon,
    )


def storage_options(url: str, storage: StorageConfig | None, retry: RetryPolicy) -> dict[str, Any]:
    """fsspec ``storage_options`` for ``url`` (for libraries that build their own filesystem)."""
    scheme = scheme_of(url)
    if scheme in S3_SCHEMES:
        return _s3fs_options(s3_settings(storage), retry)
    if scheme in GCS_SCHEMES and storage is not None and storage.anon:
        return {"token": "anon"}
    return {}


def _oserror_on_transport_failure(func: Callable[_P, _T]) -> Callable[_P, _T]:
    """Raise OSError when the store is unreachable: s3fs lets botocore's own exceptions
    (EndpointConnectionError, timeouts) through untranslated, so callers could not
    otherwise catch every storage failure as OSError."""

    @functools.wraps(func)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        try:
            return func(*args, **kwargs)
        except BotoCoreError as exc:
            url = args[1] if len(args) > 1 else ""
            raise OSError(f"{url}: {type(exc).__name__}: {exc}") from exc

    return wrapper


def join(url: str, *parts: str) -> str:
    """``url`` with ``parts`` appended by ``/`` (works for local paths and URLs alike)."""
    out = url
    for part in parts:
        part = part.strip("/")
        if part:
            out = f"{out.rstrip('/')}/{part}"
    return out


class ObjectStore(BaseModel):
    """Every read and write of a run, for any URL: one ``StorageConfig`` and one retry policy.

    Built once per run (``RunFolder.open``) and handed to the stages and actors that need
    it (it pickles: it holds settings, and fsspec caches the filesystem instances).
    Unreachable stores raise ``OSError``; URLs that cannot be served raise ``StorageError``.
    """

    model_config = ConfigDict(frozen=True)

    storage: StorageConfig | None = None
    retry: RetryPolicy = DEFAULT_RETRY

    def filesystem(self, url: str) -> tuple[fsspec.AbstractFileSystem, str]:
        """The fsspec filesystem serving ``url`` and the path inside it."""
        scheme = scheme_of(url)
        if scheme in LOCAL_SCHEMES:
            return LocalFileSystem(), _local_path(url)
        if scheme in GCS_SCHEMES:
            _require("gcsfs", url, "pip install gcsfs")
        try:
            fs, path = fsspec.core.url_to_fs(url, **storage_options(url, self.storage, self.retry))
        except (ImportError, ValueError) as exc:  # a protocol's package is missing / "Protocol not known"
            raise StorageError(f"cannot open {url}: {exc}") from exc
        if scheme in S3_SCHEMES:
            # s3fs's own retry loop wraps botocore's; it is a class attribute, not a constructor option.
            fs.retries = self.retry.attempts
        return fs, path

    def pyarrow_filesystem(self, url: str) -> tuple[pafs.FileSystem, str]:
        """A pyarrow filesystem for ``url`` and the path inside it (no scheme), for Ray Data I/O.

        S3 uses pyarrow's native client: pyarrow reading through s3fs can abort the
        interpreter at exit after threaded reads.
        """
        scheme = scheme_of(url)
        if scheme in LOCAL_SCHEMES:
            return pafs.LocalFileSystem(), _local_path(url)
        if scheme in S3_SCHEMES:
            return _pyarrow_s3(s3_settings(self.storage), self.retry), url.split("://", 1)[1]
        fs, path = self.filesystem(url)
        return pafs.PyFileSystem(pafs.FSSpecHandler(fs)), path

    @_oserror_on_transport_failure
    def exists(self, url: str) -> bool:
        fs, path = self.filesystem(url)
        return bool(fs.exists(path))

    @_oserror_on_transport_failure
    def read_bytes(self, url: str) -> bytes:
        """The object's bytes; ``FileNotFoundError`` when there is none."""
        fs, path = self.filesystem(url)
        return bytes(fs.cat_file(path))

    def read_if_exists(self, url: str) -> bytes | None:
        try:
            return self.read_bytes(url)
        except FileNotFoundError:
            return None

    @_oserror_on_transport_failure
    def open(self, url: str, mode: str = "rb", **kwargs: Any) -> IO[Any]:
        """A file object (``kwargs`` go to fsspec, e.g. ``compression="infer"``)."""
        fs, path = self.filesystem(url)
        handle: IO[Any] = fs.open(path, mode, **kwargs)
        return handle

    @_oserror_on_transport_failure
    def write_atomic(self, url: str, data: bytes) -> None:
        """Write ``data`` so readers see either the old object or the whole new one, never a part.

        Local: fsynced temp file + rename, with the mode a plain write would get (umask);
        object stores: one PUT (never a multipart upload)."""
        fs, path = self.filesystem(url)
        if isinstance(fs, LocalFileSystem):
            tmp = _local_temp_copy(Path(path), data)
            try:
                os.replace(tmp, path)
            except BaseException:
                os.unlink(tmp)
                raise
            return
        fs.pipe_file(path, data, **_single_put(fs, data))

    @_oserror_on_transport_failure
    def create_exclusive(self, url: str, data: bytes) -> bool:
        """Create ``url`` holding ``data`` unless it exists; ``False`` if it already did.

        Atomic and exclusive: of concurrent callers exactly one gets ``True``, and the
        object is never visible half-written (local: temp file + hard link; S3: one
        PUT with ``If-None-Match: *``).
        """
        fs, path = self.filesystem(url)
        if isinstance(fs, LocalFileSystem):
            return _create_exclusive_local(Path(path), data)
        try:
            fs.pipe_file(path, data, mode="create", **_single_put(fs, data))
        except FileExistsError:
            return False
        except OSError as exc:
            if _is_conditional_conflict(exc):
                return False
            raise
        return True

    @_oserror_on_transport_failure
    def remove(self, url: str) -> None:
        """Delete the object at ``url``; one already gone is no error."""
        fs, path = self.filesystem(url)
        with contextlib.suppress(FileNotFoundError):
            fs.rm_file(path)

    @_oserror_on_transport_failure
    def list_files(self, url: str, suffix: str = "", *, recursive: bool = True) -> list[str]:
        """Files under ``url`` whose names end with ``suffix``, as sorted URLs.

        The results keep the style of ``url``: plain paths for a plain path, ``s3://...``
        for ``s3://...``. A missing folder lists as empty.
        """
        fs, path = self.filesystem(url)
        if not fs.exists(path):
            return []
        found = fs.find(path) if recursive else fs.ls(path, detail=False)
        keep_scheme = scheme_of(url) != ""
        return sorted(
            fs.unstrip_protocol(name) if keep_scheme else name
            for name in found
            if name.endswith(suffix) and not name.endswith("/")
        )


def _s3fs_options(settings: S3Settings, retry: RetryPolicy) -> dict[str, Any]:
    options: dict[str, Any] = {
        "anon": settings.anon,
        # Listings must be fresh: resume logic and exclusive claims read what other
        # processes just wrote.
        "use_listings_cache": False,
        "config_kwargs": {
            "retries": {"max_attempts": retry.attempts, "mode": "standard"},
            "connect_timeout": retry.connect_timeout_s,
            "read_timeout": retry.read_timeout_s,
        },
    }
    if settings.endpoint_url:
        options["endpoint_url"] = settings.endpoint_url
    if settings.key is not None:
        options["key"] = settings.key
        options["secret"] = settings.secret
    if settings.region:
        options["client_kwargs"] = {"region_name": settings.region}
    return options


def _pyarrow_s3(settings: S3Settings, retry: RetryPolicy) -> pafs.S3FileSystem:
    kwargs: dict[str, Any] = {
        "anonymous": settings.anon,
        "region": settings.region,
        "connect_timeout": retry.connect_timeout_s,
        "request_timeout": retry.read_timeout_s,
        "retry_strategy": pafs.AwsStandardS3RetryStrategy(max_attempts=retry.attempts),
    }
    if settings.endpoint_url:
        parts = urlsplit(settings.endpoint_url)
        if not parts.scheme or not parts.netloc:
            raise StorageError(f"S3 endpoint {settings.endpoint_url!r} must look like http(s)://host:port")
        kwargs["scheme"] = parts.scheme
        kwargs["endpoint_override"] = parts.netloc + parts.path.rstrip("/")
    if settings.key is not None:
        kwargs["access_key"] = settings.key
        kwargs["secret_key"] = settings.secret
    return pafs.S3FileSystem(**kwargs)


def _single_put(fs: fsspec.AbstractFileSystem, data: bytes) -> dict[str, Any]:
    # s3fs switches to multipart above 2 x chunksize; a multipart upload ignores
    # If-None-Match and leaves orphans when killed, so keep it to one PUT (<= 5 GiB).
    if fs.protocol and set(fs.protocol) & set(S3_SCHEMES):
        return {"chunksize": max(len(data), 1)}
    return {}


def _is_conditional_conflict(exc: OSError) -> bool:
    if exc.errno != errno.EINVAL:
        return False
    response = getattr(exc.__cause__, "response", None)
    if isinstance(response, dict):
        return response.get("Error", {}).get("Code") in _CONDITIONAL_CONFLICT_CODES
    return "pre-condition" in str(exc).lower() or "precondition" in str(exc).lower()


def _local_path(url: str) -> str:
    path = url.split("://", 1)[1] if "://" in url else url
    return os.path.abspath(os.path.expanduser(path))


def _local_temp_copy(target: Path, data: bytes) -> str:
    """``data`` fully written and fsynced to a temp file beside ``target``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, _plain_file_mode())  # mkstemp makes 0600; a run's files are for others too
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        os.unlink(tmp)
        raise
    return tmp


def _plain_file_mode() -> int:
    """The mode ``open(path, "w")`` would give a new file: 0666 less the process umask."""
    try:  # Linux >= 4.7 reports the umask without changing it (os.umask would race threads)
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return 0o666 & ~int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def _create_exclusive_local(target: Path, data: bytes) -> bool:
    tmp = _local_temp_copy(target, data)
    try:
        os.link(tmp, target)  # fails if target exists: atomic and exclusive
    except FileExistsError:
        return False
    finally:
        os.unlink(tmp)
    return True


def _require(module: str, url: str, install: str) -> None:
    try:
        __import__(module)
    except ImportError as exc:
        raise StorageError(f"{url}: the {module} package is needed for this URL ({install})") from exc
