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
    GenerationSettings,
    ModelConfig,
    RunConfig,
    TrackingConfig,
    describe_errors,
)
from linteval_ray.config.generation import (
    VLLM_DEFAULT_MAX_LORA_RANK,
    lora_rank_for,
    max_lora_rank_advice,
    parse_generation,
    switch_backend,
)
from linteval_ray.sets.checkpoints import Checkpoint


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


def generation_of(base: GenerationSettings, entry: ModelConfig) -> GenerationSettings:
    """The run's generation section with what ``entry`` changes (another backend than the run's: that
    backend's section instead of the run's, from its defaults)."""
    who = f"model {entry.name!r}"
    data = entry.applied_to(base.model_dump(mode="json"), who)
    data["sampling"] = {**data["sampling"], **entry.sampling}
    changes = dict(entry.generation)
    if "backend" in changes:
        data = switch_backend(data, str(changes.pop("backend")))
    _deep_merge(data, changes)
    return _parsed(data, who)


def checkpoint_member(base: GenerationSettings, checkpoint: Checkpoint) -> SetMember:
    """A checkpoint as a vLLM model: a full model folder, or a LoRA adapter on the run's vLLM model
    (else the base the adapter names)."""
    data = base.model_dump(mode="json")
    data = switch_backend(data, "vllm") if base.backend != "vllm" else data
    vllm = dict(data.get("vllm") or {})
    if not checkpoint.adapter:
        vllm.update(model=checkpoint.url, lora=None)
    else:
        vllm["model"] = vllm.get("model") or checkpoint.base_model
        if not vllm["model"]:
            raise ConfigError(f"checkpoint {checkpoint.url} is a LoRA adapter without a base model: set "
                              "generation.vllm.model (--set generation.vllm.model=PATH_OR_HUB_ID)")
        vllm["lora"] = checkpoint.url
        rank, engine_kwargs = checkpoint.lora_rank, dict(vllm.get("engine_kwargs") or {})
        if rank and rank > VLLM_DEFAULT_MAX_LORA_RANK and "max_lora_rank" not in engine_kwargs:
            # vLLM refuses r above its max_lora_rank, and a max_lora_rank not among those it accepts.
            if (fit := lora_rank_for(rank)) is None:
                raise ConfigError(f"checkpoint {checkpoint.url}: its rank {rank} is above what vLLM serves "
                                  f"({max_lora_rank_advice(rank)})")
            vllm["engine_kwargs"] = {**engine_kwargs, "max_lora_rank": fit}
    data["vllm"] = vllm
    return SetMember(name=checkpoint.name, generation=_parsed(data, f"checkpoint {checkpoint.url}"),
                     step=checkpoint.step, checkpoint=checkpoint.url)


def _parsed(data: dict[str, Any], who: str) -> GenerationSettings:
    try:
        return parse_generation(data)
    except ValidationError as exc:
        raise ConfigError(f"{who}: {describe_errors(exc, prefix='generation')}") from None


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
