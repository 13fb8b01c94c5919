"""Weights & Biases: one W&B run per evaluated model, grouped by the set.

Project, entity, mode and local folder come from ``tracking.wandb`` (``--wandb-project``,
``--wandb-entity``), else W&B's own environment (``WANDB_PROJECT``, ``WANDB_ENTITY``,
``WANDB_MODE``: ``offline`` writes the runs to disk for a later ``wandb sync``, ``WANDB_DIR``).
Metrics are logged at the checkpoint's step and kept as the run's summary; the tags (folder URL,
dataset and toolchain hashes) are the run's config; the files are one artifact per model.
"""

from __future__ import annotations

import os
import re

from linteval_ray.config import TrackingConfig
from linteval_ray.track.base import TrackedRun, Tracker

DEFAULT_PROJECT = "linteval"
INIT_TIMEOUT_S = 60.0  # a W&B server that does not answer costs a warning after this
_ARTIFACT_UNSAFE = re.compile(r"[^\w.-]")  # W&B artifact names: letters, digits, - _ .


class WandbTracker(Tracker):
    name = "wandb"

    def __init__(self, config: TrackingConfig, group: str) -> None:  # each run names its group itself
        self._settings = config.wandb  # unset fields: W&B reads WANDB_ENTITY, WANDB_MODE, WANDB_DIR itself
        self._project = config.wandb.project or os.environ.get("WANDB_PROJECT") or DEFAULT_PROJECT

    def log(self, run: TrackedRun) -> str:
        import wandb

        settings = self._settings
        if settings.dir:
            os.makedirs(settings.dir, exist_ok=True)
        tracked = wandb.init(project=self._project, entity=settings.entity, mode=settings.mode, dir=settings.dir,
                             name=run.name, group=run.group, job_type="linteval", config=run.tags,
                             tags=["linteval", *([f"step-{run.step}"] if run.step is not None else [])],
                             reinit="create_new", settings=wandb.Settings(init_timeout=INIT_TIMEOUT_S, silent=True))
        try:
            tracked.log(run.metrics, step=run.step or 0)
            tracked.summary.update(run.metrics)
            artifact = wandb.Artifact(_ARTIFACT_UNSAFE.sub("_", f"{run.group}-{run.name}"), type="linteval-results")
            for path in run.artifacts:
                artifact.add_file(str(path))
            tracked.log_artifact(artifact)
            run_id: str = tracked.id
        finally:
            tracked.finish()
        return run_id
