"""The one interface every tracker implements, and what it is given to record."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from pathlib import Path
from typing import ClassVar

from pydantic import BaseModel, Field

from linteval_ray.errors import LintEvalError
from linteval_ray.reduce.metrics import GroupMetrics, RunMetrics

_METRIC_NAME_UNSAFE = re.compile(r"[^\w./\- ]")  # what MLflow and W&B both accept in a metric's name
GROUP_FIELDS = ("pass_at_1", "reduction_at_p", "new_at_p", "delta_line_at_p", "line_per_fix_at_p", "unchanged", "n",
                "n_passed")


class TrackerUnavailable(LintEvalError):
    """A tracker was asked for that cannot be used as configured (its package missing, no server named)."""


class TrackedRun(BaseModel):
    """One evaluated model, as a tracker records it."""

    name: str = Field(description="the model's name in the set: the tracker run's name")
    group: str = Field(description="the set's run name: the tracker's group / experiment")
    step: int | None = Field(description="the checkpoint's training step (None: not a checkpoint)")
    metrics: dict[str, float]
    tags: dict[str, str]
    artifacts: list[Path] = Field(description="local files to attach (results.parquet, the leaderboard)")


class Tracker(ABC):
    """An experiment tracker: ``log`` records one model as one run of the tracker."""

    name: ClassVar[str]

    @abstractmethod
    def log(self, run: TrackedRun) -> str:
        """Record ``run`` and return the tracker's id of it; raises when the tracker cannot be reached."""

    def close(self) -> None:
        """Release what the tracker holds (nothing by default)."""
        return


def flat_metrics(metrics: RunMetrics) -> dict[str, float]:
    """``overall/pass_at_1``, ``cpp/reduction_at_p``, ``category/<name>/reduction_at_p``, ``overall/pass_at_k/<k>``:
    every number of the metrics a tracker can chart (None values left out)."""
    flat = _group("overall", metrics.overall)
    for language, group in metrics.by_language.items():
        flat |= _group(language, group)
    for category, counts in metrics.by_category.items():
        flat[f"category/{category}/alerts_in"] = float(counts.alerts_in)
        flat[f"category/{category}/alerts_out"] = float(counts.alerts_out)
        if counts.reduction_at_p is not None:
            flat[f"category/{category}/reduction_at_p"] = counts.reduction_at_p
    flat |= {f"overall/pass_at_k/{k.removeprefix('pass@')}": value for k, value in metrics.pass_at_k.items()}
    return {_METRIC_NAME_UNSAFE.sub("_", name): value for name, value in flat.items()}


def _group(prefix: str, group: GroupMetrics) -> dict[str, float]:
    out = {f"{prefix}/{name}": float(value) for name in GROUP_FIELDS if (value := getattr(group, name)) is not None}
    for name, ci in (("pass_at_1", group.pass_at_1_ci), ("reduction_at_p", group.reduction_at_p_ci)):
        if ci is not None:
            out[f"{prefix}/{name}_ci_low"], out[f"{prefix}/{name}_ci_high"] = ci
    return out


