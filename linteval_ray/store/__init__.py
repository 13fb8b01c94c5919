"""Where runs read and write: filesystems for local paths, s3://, gs:// and hf:// URLs."""

from linteval_ray.store.fs import (
    DEFAULT_RETRY,
    FAST_FAIL,
    RetryPolicy,
    S3Settings,
    StorageError,
    create_exclusive,
    exists,
    filesystem,
    join,
    list_files,
    pyarrow_filesystem,
    read_bytes,
    s3_settings,
    scheme_of,
    storage_options,
    write_bytes_atomic,
)

__all__ = [
    "DEFAULT_RETRY",
    "FAST_FAIL",
    "RetryPolicy",
    "S3Settings",
    "StorageError",
    "create_exclusive",
    "exists",
    "filesystem",
    "join",
    "list_files",
    "pyarrow_filesystem",
    "read_bytes",
    "s3_settings",
    "scheme_of",
    "storage_options",
    "write_bytes_atomic",
]
