"""Load LintEval samples (JSONL or Parquet, any storage) into validated records."""

from linteval_ray.load.errors import LoadError, SourceError
from linteval_ray.load.loader import LoadResult, load_split, validate_row
from linteval_ray.load.presets import HUB_PRESETS, PRESET_NAMES, bundled_path, resolve_source
from linteval_ray.load.readers import detect_format, iter_rows

__all__ = [
    "HUB_PRESETS",
    "PRESET_NAMES",
    "LoadError",
    "LoadResult",
    "SourceError",
    "bundled_path",
    "detect_format",
    "iter_rows",
    "load_split",
    "resolve_source",
    "validate_row",
]
