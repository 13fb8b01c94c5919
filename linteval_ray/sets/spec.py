"""The models of a set, each resolved into the run config a single ``linteval-ray run`` of it would use.

A set's config is one ``RunConfig``: its ``generation`` section is what every model shares, its
``models:`` entries say what differs per model (backend, model, LoRA, endpoint, saved answers,
sampling, any other generation key), and ``checkpoints.glob`` adds one model per checkpoint.
``member_config`` turns a model into the ``RunConfig`` of its own run folder,
``OUTPUT/models/<name>``: the set's config with that model's generation and none of the set's
keys, so the folder's manifest and fingerprint are those of a single run of that model, and
``run``, ``reduce``, ``report`` and ``compare`` treat it as one.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from linteval_ray.config import (
    CheckpointsConfig,
    ConfigError,
    GenerationConfig,
    ModelConfig,
    RunConfig,
    TrackingConfig,
)
from linteval_ray.sets.checkpoints import MAX_LORA_RANK_DEFAULT, Checkpoint


class SetMember(BaseModel):
    """One model of a set: its name, its generation settings and (checkpoints) its step."""

    name: str
    generation: GenerationConfig
    step: int | None = None
    checkpoint: str | None = None  # the folder a checkpoint glob found


def members_of(config: RunConfig, checkpoints: list[Checkpoint]) -> list[SetMember]:
    """The set's models in order: ``models:`` entries (config, then flags), then the checkpoints by step."""
    members = [SetMember(name=m.name, generation=generation_of(config.generation, m), step=m.step)
               for m in config.models]
    members += [checkpoint_member(config.generation, c) for c in checkpoints]
    seen: set[str] = set()
    for member in members:
        if member.name in seen:
            raise ConfigError(f"model {member.name!r} is named twice in the set: give each model its own name")
        seen.add(member.name)
    return members


def generation_of(base: GenerationConfig, entry: ModelConfig) -> GenerationConfig:
    """The run's generation section with what ``entry`` changes."""
    data = base.model_dump(mode="json")
    data["sampling"] = {**data["sampling"], **entry.sampling}
    backend = entry.backend or _implied_backend(entry, base.backend) or base.backend
    data["backend"] = backend
    if entry.predictions is not None:
        data["replay"]["predictions"] = entry.predictions
    if entry.endpoint is not None:
        data["endpoint"]["url"] = entry.endpoint
    if entry.model is not None:
        if backend == "replay":
            raise ConfigError(f"model {entry.name!r}: saved answers (predictions) have no model to run; drop "
                              "`model` or set `backend`")
        data["endpoint" if backend == "endpoint" else "vllm"]["model"] = entry.model
    if entry.lora is not None:
        data["vllm"]["lora"] = entry.lora
    _deep_merge(data, entry.generation)
    try:
        return GenerationConfig.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ConfigError(f"model {entry.name!r}: generation.{where}: {first['msg']}") from None


def _implied_backend(entry: ModelConfig, base: str) -> str | None:
    """What an entry's fields ask for: saved answers replay, a URL is an endpoint, a LoRA is vLLM,
    and a model alone runs where the run's models run (an endpoint's served name, else vLLM)."""
    if entry.predictions is not None:
        return "replay"
    if entry.endpoint is not None:
        return "endpoint"
    if entry.lora is not None:
        return "vllm"
    if entry.model is not None:
        return base if base == "endpoint" else "vllm"
    return None


def checkpoint_member(base: GenerationConfig, checkpoint: Checkpoint) -> SetMember:
    """A checkpoint as a vLLM model: a full model folder, or a LoRA adapter on the run's vLLM model
    (else the base the adapter names)."""
    generation = base.model_copy(deep=True)
    generation.backend = "vllm"
    vllm = generation.vllm
    if not checkpoint.adapter:
        vllm.model, vllm.lora = checkpoint.url, None
    else:
        vllm.model = vllm.model or checkpoint.base_model
        if not vllm.model:
            raise ConfigError(f"checkpoint {checkpoint.url} is a LoRA adapter without a base model: set "
                              "generation.vllm.model (--set generation.vllm.model=PATH_OR_HUB_ID)")
        vllm.lora = checkpoint.url
        rank = checkpoint.lora_rank
        if rank and rank > MAX_LORA_RANK_DEFAULT and "max_lora_rank" not in vllm.engine_kwargs:
            vllm.engine_kwargs = {**vllm.engine_kwargs, "max_lora_rank": rank}  # vLLM refuses r > its default
    return SetMember(name=checkpoint.name, generation=generation, step=checkpoint.step, checkpoint=checkpoint.url)


def member_config(config: RunConfig, member: SetMember, output: str) -> RunConfig:
    """The config of ``member``'s own run folder: the set's, with the member's generation and
    without the set's own keys (what a single ``linteval-ray run`` of that model holds)."""
    return config.model_copy(update={
        "run_name": member.name, "output": output, "generation": member.generation,
        "models": [], "checkpoints": CheckpointsConfig(), "baseline": None, "tracking": TrackingConfig(),
    }, deep=True)


def _deep_merge(into: dict[str, Any], changes: dict[str, Any]) -> None:
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _deep_merge(into[key], value)
        else:
            into[key] = value
