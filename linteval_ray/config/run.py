"""RunConfig: a whole run, and how a YAML file, flags and ``--set`` overrides make one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import Field, ValidationError, field_validator

from linteval_ray.config.generation import (
    GENERATIONS,
    GenerationConfig,
    ModelChoice,
    ReplayGeneration,
    switch_backend,
)
from linteval_ray.config.section import NEUTRAL, SECRET, ConfigError, Section
from linteval_ray.config.sets import DEFAULT_RANK_BY, CheckpointsConfig, ModelConfig, RankBy, TrackingConfig
from linteval_ray.config.validation import ValidationConfig
from linteval_ray.schema.record import Language


class StorageConfig(Section):
    """Object-store credentials. Unset fields fall back to the usual AWS_* variables."""

    endpoint_url: str | None = Field(default=None, description="S3-compatible endpoint, e.g. http://127.0.0.1:8333")
    key: Annotated[str | None, SECRET] = Field(default=None, description="access key id (prefer AWS_ACCESS_KEY_ID)")
    secret: Annotated[str | None, SECRET] = Field(
        default=None, description="secret key (prefer AWS_SECRET_ACCESS_KEY)")
    region: str | None = None
    anon: bool = Field(default=False, description="anonymous access (public buckets)")


class DatasetConfig(Section):
    """Which samples to evaluate."""

    source: Annotated[str, NEUTRAL] = Field(  # where the split is: its bytes are fingerprinted (their sha256)
        default="bundled",
        description="a preset (bundled, lite, demo, full) or a JSONL/Parquet URL (local, s3://, gs://, hf://)",
    )
    limit: int | None = Field(default=None, ge=1, description="evaluate at most this many samples")
    languages: list[Language] | None = Field(default=None, description="keep only these languages")
    sample_ids: list[str] | None = None
    problem_ids: list[str] | None = None


class TaskConfig(Section):
    """Which task the run evaluates (``linteval_ray/tasks/``) and the task's own settings."""

    name: str | None = Field(
        default=None, description="linteval, codecontests-o, or a task registered by a plugin; default: the "
        "preset's task, else the task whose rows the split's columns are")
    options: dict[str, Any] = Field(
        default_factory=dict, description="the task's own settings, checked by the task (docs/tasks.md)")


class RayConfig(Section):
    address: str | None = Field(default=None, description="cluster address; unset: start or join a local Ray")
    num_cpus: int | None = Field(default=None, description="logical CPUs of a local Ray")


class RunConfig(Section):
    """A whole run. Settings marked ``NEUTRAL`` (here and in the sections) change no result row."""

    run_name: Annotated[str | None, NEUTRAL] = Field(
        default=None, description="default: <dataset>-<backend>-<timestamp>")
    output: Annotated[str | None, NEUTRAL] = Field(
        default=None, description="fsspec URL of the run folder; default ./runs/<run_name>")
    dataset: DatasetConfig = Field(default_factory=DatasetConfig)
    # The resolved task and its options are fingerprinted by the driver (pipeline/run.py
    # run_fingerprint) for every task but LintEval, whose fingerprint stays what it was.
    task: Annotated[TaskConfig, NEUTRAL] = Field(default_factory=TaskConfig)
    storage: Annotated[StorageConfig, NEUTRAL] = Field(default_factory=StorageConfig)
    generation: GenerationConfig = Field(default_factory=ReplayGeneration)
    validation: ValidationConfig = Field(default_factory=ValidationConfig)
    ray: Annotated[RayConfig, NEUTRAL] = Field(default_factory=RayConfig)
    # A set of models in one run (linteval_ray/sets): each model's rows go to OUTPUT/models/<name>/,
    # whose own config has none of these keys.
    models: Annotated[list[ModelConfig], NEUTRAL] = Field(
        default_factory=list, description="the models of a set, in order")
    checkpoints: Annotated[CheckpointsConfig, NEUTRAL] = Field(default_factory=CheckpointsConfig)
    baseline: Annotated[str | None, NEUTRAL] = Field(
        default=None, description="the model a set's deltas are against (default: the first)")
    rank_by: Annotated[RankBy, NEUTRAL] = Field(
        default=DEFAULT_RANK_BY, description="what a set's leaderboard ranks by: pass_x_reduction (Pass@1 × "
        "Reduction@P: returning the programs unchanged scores 0), pass_at_1, reduction_at_p")
    tracking: Annotated[TrackingConfig, NEUTRAL] = Field(default_factory=TrackingConfig)

    @field_validator("task", mode="before")
    @classmethod
    def _task_by_name(cls, value: Any) -> Any:
        """``task: codecontests-o`` is short for ``task: {name: codecontests-o}``."""
        return {"name": value} if isinstance(value, str) else value

    @property
    def is_set(self) -> bool:
        """Several models in one run (``models`` or ``checkpoints.glob``), each in OUTPUT/models/<name>/."""
        return bool(self.models or self.checkpoints.glob)


def dataset_overrides(source: str | None = None, limit: int | None = None, languages: list[str] | None = None,
                      sample_ids: list[str] | None = None) -> list[str]:
    """The dataset flags every command shares (--dataset, --limit, --language, --sample-id) as overrides."""
    pairs = []
    if source:
        pairs.append(f"dataset.source={json.dumps(source)}")
    if limit:
        pairs.append(f"dataset.limit={limit}")
    if languages:
        pairs.append(f"dataset.languages={json.dumps(languages)}")
    if sample_ids:
        pairs.append(f"dataset.sample_ids={json.dumps(sample_ids)}")
    return pairs


def load_config(path: str | Path | None = None, overrides: list[str] | None = None,
                choice: ModelChoice | None = None) -> RunConfig:
    """Read a YAML config (or defaults), make the model ``choice`` of the command line's plain
    flags, then apply ``a.b.c=value`` overrides, in that order (each wins over the ones before)."""
    data: dict[str, Any] = {}
    if path is not None:
        data = yaml.safe_load(Path(path).read_text()) or {}
        if not isinstance(data, dict):
            raise ConfigError(f"{path}: top level must be a mapping")
    if choice is not None and choice.names_a_model():
        data["generation"] = choice.applied_to(_section(data, "generation", "the model flags"), "the model flags")
    for item in overrides or []:
        apply_override(data, item)
    try:
        return RunConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(describe_errors(exc, path)) from None


def _section(data: dict[str, Any], key: str, who: str) -> dict[str, Any]:
    section = data.get(key) or {}
    if not isinstance(section, dict):
        raise ConfigError(f"{who}: {key} is not a section")
    return section


def apply_override(data: dict[str, Any], item: str) -> None:
    """Set ``a.b.c=value`` (YAML) in the config data ``data`` (``linteval-ray suite`` applies its own with it)."""
    key, sep, raw = item.partition("=")
    if not sep or not key:
        raise ConfigError(f"override {item!r} is not key=value")
    *parents, leaf = key.strip().split(".")
    node = data
    for part in parents:
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            raise ConfigError(f"override {item!r}: {part} is not a section")
    value = yaml.safe_load(raw)
    if parents == ["generation"] and leaf == "backend" and isinstance(value, str):
        data["generation"] = switch_backend(node, value)  # a choice made later sets the others' sections aside
        return
    node[leaf] = value


def describe_errors(exc: ValidationError, path: str | Path | None = None, prefix: str = "") -> str:
    """One line per error, each naming its key as the YAML spells it (``generation.vllm.model``:
    without the union's tag, which pydantic puts after ``generation`` in the location)."""
    where = f"{path}: " if path else ""
    lines = []
    for err in exc.errors():
        parts = [*filter(None, prefix.split(".")), *(str(p) for p in err["loc"])]
        if parts[:1] == ["generation"] and len(parts) > 2 and parts[1] in GENERATIONS:
            del parts[1]
        key = ".".join(parts)
        if err["type"] == "extra_forbidden":
            lines.append(f"{where}unknown key '{key}'")
        else:
            lines.append(f"{where}{key}: {err['msg']}")
    return "\n".join(lines)
