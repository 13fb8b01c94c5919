"""Named data sets: ``bundled`` ships inside the package, the others live on the Hugging Face Hub.

These are LintEval's; every other task ships its own (``Task.presets``, e.g. ``codecontests-o:test``),
found here through the task registry.
"""

from __future__ import annotations

from linteval_ray.schema.bundled import bundled_path
from linteval_ray.schema.task import LINTEVAL_TASK

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
    if name_or_url in HUB_PRESETS:
        return HUB_PRESETS[name_or_url]
    preset = _task_preset(name_or_url)
    return preset[1] if preset is not None else name_or_url


def preset_task(name_or_url: str) -> str | None:
    """The task whose preset ``name_or_url`` is (None: not a preset)."""
    if name_or_url in PRESET_NAMES:
        return LINTEVAL_TASK
    preset = _task_preset(name_or_url)
    return preset[0] if preset is not None else None


def _task_preset(name: str) -> tuple[str, str] | None:
    """(task, URL) of another task's preset named ``name``."""
    from linteval_ray.tasks.registry import tasks  # the registry loads the task packages, above this layer

    for spec in tasks():
        if name in spec.presets:
            return spec.name, spec.presets[name]
    return None
