"""The keys of a set of models (``linteval_ray/sets``): its models, its checkpoints, its trackers."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from linteval_ray.config.generation import ModelChoice
from linteval_ray.config.section import Section

MODEL_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$"  # a folder name on every store
# What a leaderboard and ``compare`` rank by (reduce/ranking.py; the default: one doing nothing cannot win).
RankBy = Literal["pass_x_reduction", "pass_at_1", "reduction_at_p"]
DEFAULT_RANK_BY: RankBy = "pass_x_reduction"


class ModelConfig(ModelChoice):
    """One model of a set (``models:``): a name, and what differs from the run's ``generation`` section."""

    name: str = Field(pattern=MODEL_NAME_PATTERN,
                      description="names the model's run folder OUTPUT/models/<name> (letters, digits, . _ -)")
    sampling: dict[str, Any] = Field(default_factory=dict, description="keys of generation.sampling that differ")
    generation: dict[str, Any] = Field(
        default_factory=dict, description="any other key of the generation section that differs (merged last), "
        "e.g. {vllm: {engine_kwargs: {tensor_parallel_size: 2}}}")
    step: int | None = Field(default=None, ge=0, description="training step, for the learning curve "
                             "(checkpoints: parsed from the folder name)")


class CheckpointsConfig(Section):
    """Every checkpoint of a training run as a model of the set."""

    glob: str | None = Field(
        default=None, description="checkpoint folders, e.g. s3://bucket/run/checkpoint-* (local, s3://, gs://): one "
        "model each, named by its folder, its step parsed from the name; a folder holding adapter_config.json is "
        "a LoRA adapter on generation.vllm.model (default: the adapter's base_model_name_or_path)")
    follow_s: float | None = Field(
        default=None, gt=0, description="keep polling the glob every this many seconds and evaluate each new "
        "checkpoint once its files stop changing, until interrupted")


class MlflowConfig(Section):
    tracking_uri: str | None = Field(default=None, description="a server (http://...) or sqlite:///mlflow.db; default: "
                                     "MLFLOW_TRACKING_URI")
    experiment: str | None = Field(default=None, description="default: MLFLOW_EXPERIMENT_NAME, else the run name")


class WandbConfig(Section):
    project: str | None = Field(default=None, description="default: WANDB_PROJECT, else linteval")
    entity: str | None = Field(default=None, description="default: WANDB_ENTITY, else your default entity")
    mode: Literal["online", "offline"] | None = Field(default=None, description="default: WANDB_MODE, else online")
    dir: str | None = Field(default=None, description="where W&B writes its local files (default: WANDB_DIR or .)")


class TrackingConfig(Section):
    """Experiment trackers each evaluated model is logged to (optional extras: pip install 'linteval-ray[mlflow]')."""

    log_to: list[str] = Field(default_factory=list, description="tracker names: mlflow, wandb")
    mlflow: MlflowConfig = Field(default_factory=MlflowConfig)
    wandb: WandbConfig = Field(default_factory=WandbConfig)
