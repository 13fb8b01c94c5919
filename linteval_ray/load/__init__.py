"""Load LintEval samples (JSONL or Parquet, any storage) into validated records."""

from linteval_ray.load.errors import MalformedRow, SourceError
from linteval_ray.load.loader import Checked, InvalidRow, LoadResult, RowChecker, checked_rows, load_split, validate_row
from linteval_ray.load.presets import HUB_PRESETS, PRESET_NAMES, resolve_source
from linteval_ray.load.readers import (
    detect_format,
    digest_in_background,
    iter_rows,
    jsonl_rows,
    parquet_rows,
    source_digest,
)
from linteval_ray.schema.bundled import bundled_path

__all__ = [
    "HUB_PRESETS",
    "PRESET_NAMES",
    "Checked",
    "InvalidRow",
    "LoadResult",
    "MalformedRow",
    "RowChecker",
    "SourceError",
    "bundled_path",
    "checked_rows",
    "detect_format",
    "digest_in_background",
    "iter_rows",
    "jsonl_rows",
    "load_split",
    "parquet_rows",
    "resolve_source",
    "source_digest",
    "validate_row",
]
