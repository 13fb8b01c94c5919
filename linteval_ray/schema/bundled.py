"""The bundled split: LintEval records shipped inside the package, so every install has some (the
``bundled`` preset, the validation workers' canaries, the benchmarks). ``data/build.py`` writes it."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from linteval_ray.errors import LintEvalError

BUNDLED_RESOURCE = ("load", "bundled", "linteval_bundled.jsonl")  # under the package linteval_ray


def bundled_path() -> Path:
    """The bundled split, a resource of this package."""
    resource = files("linteval_ray").joinpath(*BUNDLED_RESOURCE)
    # The readers open sources by path (fsspec): a wheel installs unpacked, so this is a real file.
    if not isinstance(resource, Path):
        raise LintEvalError(f"the bundled data set is not a file on disk ({resource}): install linteval-ray unpacked")
    return resource
