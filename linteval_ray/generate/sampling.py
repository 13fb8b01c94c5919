"""The sampling every request carries: ``generation.sampling`` and, where it leaves a parameter unset,
the model's own default, as ``vllm serve`` applies it.

``vllm serve`` (``--generation-config auto``, its default) fills what a request leaves unset from the
model's ``generation_config.json`` (vLLM's ``ModelConfig.get_diff_sampling_param``: repetition_penalty,
temperature, top_k, top_p, min_p, max_new_tokens), while vLLM's engine, which the vllm backend drives,
applies no default to the ``SamplingParams`` it is given. So one model sampled differently by backend:
a chat model's ``repetition_penalty`` (Qwen2.5's 1.05) changed even its greedy outputs behind
``vllm serve`` only. Now the vllm backend reads the model's defaults once, on an engine's node before
the engines start (``model_sampling_defaults``), and fills them in where ``generation.sampling``
leaves a parameter unset; the endpoint backend sends only the parameters that are set, the server's
defaults deciding the rest. Against ``vllm serve`` of the same model both sample alike. temperature,
top_p and max_tokens are always set (their defaults are ours), so the model's values for them never
apply; top_k, min_p and repetition_penalty default to unset. The manifest records what every request
carried (``EffectiveSampling``).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from linteval_ray.config import SamplingConfig

# What vLLM 0.29 reads from generation_config.json (ModelConfig.get_diff_sampling_param); HF's
# max_new_tokens is vLLM's max_tokens.
GENERATION_CONFIG_SAMPLING = ("repetition_penalty", "temperature", "top_k", "top_p", "min_p", "max_new_tokens")
ALWAYS_SET = ("temperature", "top_p", "max_tokens")  # sampling's own defaults: never the model's
MODEL_DEFAULTABLE = ("top_k", "min_p", "repetition_penalty")  # unset (None): the model's default, else vLLM's


class EffectiveSampling(BaseModel):
    """The sampling parameters of every request (seed: the first draw's; draw d uses seed + d)."""

    params: dict[str, Any] = Field(description="what every request carries")
    from_model: list[str] = Field(
        default_factory=list, description="of params, those taken from the model's generation_config.json")
    left_to_server: list[str] = Field(
        default_factory=list, description="parameters left unset in the request: the server's defaults decide")


def requested(sampling: SamplingConfig) -> dict[str, Any]:
    """The parameters ``sampling`` sets (an unset one is left out)."""
    params: dict[str, Any] = {name: getattr(sampling, name) for name in ALWAYS_SET}
    params.update({name: getattr(sampling, name) for name in MODEL_DEFAULTABLE if getattr(sampling, name) is not None})
    if sampling.stop:
        params["stop"] = list(sampling.stop)
    if sampling.seed is not None:
        params["seed"] = sampling.seed
    return params


def with_model_defaults(sampling: SamplingConfig, defaults: dict[str, Any]) -> EffectiveSampling:
    """``sampling`` with the model's ``defaults`` (``model_sampling_defaults``) where it sets nothing."""
    params = requested(sampling)
    taken = {name: defaults[name] for name in MODEL_DEFAULTABLE if name not in params and name in defaults}
    return EffectiveSampling(params={**params, **taken}, from_model=sorted(taken))


def left_to_server(sampling: SamplingConfig) -> EffectiveSampling:
    """What an endpoint request carries: ``sampling``'s set parameters, the server deciding the others."""
    params = requested(sampling)
    return EffectiveSampling(params=params, left_to_server=[name for name in MODEL_DEFAULTABLE if name not in params])


def for_draw(params: dict[str, Any], draw: int) -> dict[str, Any]:
    """A request's parameters for draw ``draw``: seed + draw, so draws differ yet reproduce."""
    return {**params, "seed": params["seed"] + draw} if "seed" in params else dict(params)


def model_sampling_defaults(model: str, engine_kwargs: dict[str, Any]) -> dict[str, Any]:
    """Runs on an engine's node: the sampling defaults of ``model``'s generation_config.json as vLLM's
    OpenAI server takes them (its ``ModelConfig.get_diff_sampling_param``, with the engine's own
    ``generation_config`` and ``override_generation_config`` settings): the file's values of
    GENERATION_CONFIG_SAMPLING, max_new_tokens as max_tokens. Read with vLLM's own loader
    (``try_get_generation_config``: the file, else one derived from the model's config.json)."""
    source = engine_kwargs.get("generation_config", "auto")
    config: dict[str, Any] = {}
    if source != "vllm":
        from vllm.transformers_utils.config import try_get_generation_config

        from linteval_ray.generate.tokens import local_model_path

        found = try_get_generation_config(local_model_path(model) if source == "auto" else source,
                                          trust_remote_code=bool(engine_kwargs.get("trust_remote_code", False)),
                                          revision=engine_kwargs.get("revision"))
        config = {} if found is None else dict(found.to_diff_dict())
    config.update(engine_kwargs.get("override_generation_config") or {})
    defaults = {name: config[name] for name in GENERATION_CONFIG_SAMPLING if config.get(name) is not None}
    if "max_new_tokens" in defaults:
        defaults["max_tokens"] = defaults.pop("max_new_tokens")
    return defaults
