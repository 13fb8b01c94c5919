"""Named data sets: ``bundled`` ships inside the package, the others live on the Hugging Face Hub."""

from __future__ import annotations

from linteval_ray.schema.bundled import bundled_path

_HUB = "hf://datasets/deepbreath7/LintEval"

HUB_PRESETS: dict[str, str] = {
    "lite": f"{_HUB}/lite/linteval_lite.jsonl",
    "demo": f"{_HUB}/lite/demo_100.jsonl",
    "full": f"{_HUB}/full/linteval_full.jsonl",
}
PRESET_NAMES: tuple[str, ...] = ("bundled", *HUB_PRESETS)
def resolve_source(name_or_url: str) -> str:
    """A preset name becomes its URL; anything else is already a path or URL and is returned as is."""
    if name_or_url == "bundled":
        return str(bundled_path())
    return HUB_PRESETS.get(name_or_url, name_or_url)
