"""Named data sets: ``bundled`` ships inside the package, the others live on the Hugging Face Hub."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from linteval_ray.errors import LintEvalError

_HUB = "hf://datasets/deepbreath7/LintEval"

HUB_PRESETS: dict[str, str] = {
    "lite": f"{_HUB}/lite/linteval_lite.jsonl",
    "demo": f"{_HUB}/lite/demo_100.jsonl",
    "full": f"{_HUB}/full/linteval_full.jsonl",
}
PRESET_NAMES: tuple[str, ...] = ("bundled", *HUB_PRESETS)
BUNDLED_RESOURCE = ("bundled", "linteval_bundled.jsonl")  # under the package linteval_ray.load


def bundled_path() -> Path:
    """The bundled split, a resource of this package (data/build.py writes it there)."""
    resource = files("linteval_ray.load").joinpath(*BUNDLED_RESOURCE)
    # The readers open sources by path (fsspec): a wheel installs unpacked, so this is a real file.
    if not isinstance(resource, Path):
        raise LintEvalError(f"the bundled data set is not a file on disk ({resource}): install linteval-ray unpacked")
    return resource


def resolve_source(name_or_url: str) -> str:
    """A preset name becomes its URL; anything else is already a path or URL and is returned as is."""
    if name_or_url == "bundled":
        return str(bundled_path())
    return HUB_PRESETS.get(name_or_url, name_or_url)
