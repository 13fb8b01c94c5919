"""Where runs read and write: one ``ObjectStore`` (local paths, s3://, gs://, hf://) and the
``RunFolder`` that names a run's files."""

from linteval_ray.store.folder import RunFolder
from linteval_ray.store.fs import (
    DEFAULT_RETRY,
    FAST_FAIL,
    ObjectStore,
    RetryPolicy,
    S3Settings,
    StorageError,
    join,
    s3_settings,
    scheme_of,
)

__all__ = [
    "DEFAULT_RETRY",
    "FAST_FAIL",
    "ObjectStore",
    "RetryPolicy",
    "RunFolder",
    "S3Settings",
    "StorageError",
    "join",
    "s3_settings",
    "scheme_of",
]
