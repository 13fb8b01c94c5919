"""The vLLM engine stage: ray.data.llm's engine UDF, built on the engine's node, one engine per reserved group.

ray.data.llm's builder (``build_vllm_engine_processor``, Ray 2.60) is not used, for what it does on a
cluster: it imports ``transformers`` and downloads the model's config on the driver, which runs the
CPU image (no transformers, no torch); its engine stage module imports torch; its engine pool
autoscales from one engine (``concurrency=n`` is 1..n: engines start one after another, and an
engine idled by backpressure can be released and reloaded); and it creates a ``PACK`` placement group
per engine actor that nobody removes. Here the driver composes the same ``Processor`` from Ray's
pieces without importing them: ``EngineUDF`` imports Ray's ``vLLMEngineStageUDF`` (torch, vLLM) only
inside the engine actor, the pool is fixed at ``replicas`` engines, and each engine actor runs in a
group of ``placement.EngineReservation``. The tokenizer work (chat template, tokens, detokenizing)
happens in ``PromptFit`` and in the engine itself, on the generation nodes, never on the driver.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from ray.llm._internal.batch.stages.base import StatefulStage, StatefulStageUDF

if TYPE_CHECKING:
    from ray.llm._internal.batch.processor.base import Processor

    from linteval_ray.generate.placement import EngineReservation

# vLLM's largest default max_num_seqs on a GPU (its LLM class on an H100/H200/B200): engine calls in
# flight per engine cover it unless engine_kwargs says otherwise.
LARGEST_DEFAULT_MAX_NUM_SEQS = 1024
# Engine deaths an engine actor survives (Ray restarts it in its group). Ray's engine stage exits the
# actor when vLLM's engine dies, and Ray Data's default (restart forever, retry the batch forever) made a
# request that kills the engine every time (a broken LoRA file) a job that never ends.
ENGINE_RESTARTS = 3


# What the engine itself says of each request, added to its row (Ray 2.60's vLLMOutputData keeps neither).
FINISH_REASON_KEY = "engine_finish_reason"  # vLLM's: "length" also when the context (max_model_len) is full
INFERENCE_S_KEY = "engine_inference_s"  # vLLM's request inference time: first scheduled -> last token
UNKNOWN_FACTS: dict[str, Any] = {FINISH_REASON_KEY: None, INFERENCE_S_KEY: None}  # a row the engine failed


class EngineUDF(StatefulStageUDF):
    """Ray's vLLM engine stage UDF, created in the engine actor (Ray imports torch and vLLM there only),
    with vLLM's offline-inference batch defaults (``with_offline_batch_defaults``), each row given
    what the engine says of its request (``FINISH_REASON_KEY``, ``INFERENCE_S_KEY``).

    Ray's stage turns vLLM's ``RequestOutput`` into its own row fields, without the finish reason (so a
    response cut at the context limit below max_tokens passed for a stop), and times a request from
    before its wait behind Ray's request limit (``max_pending_requests``), so a request's time held its
    queueing. The engine wrapper's ``_generate_async`` (one request into vLLM until it finished) is
    wrapped to keep both from the ``RequestOutput``, by request id, until the row comes out."""

    def __init__(self, data_column: str, expected_input_keys: list[str], **engine: Any) -> None:
        from ray.llm._internal.batch.stages.vllm_engine_stage import vLLMEngineStageUDF

        super().__init__(data_column, expected_input_keys)
        engine["engine_kwargs"] = with_offline_batch_defaults(engine["engine_kwargs"])
        self.engine = vLLMEngineStageUDF(data_column, expected_input_keys, **engine)
        self.request_facts: dict[int, dict[str, Any]] = {}
        self._keep_request_facts(self.engine.llm)

    def _keep_request_facts(self, llm: Any) -> None:
        generate = llm._generate_async

        async def generate_keeping_facts(request: Any) -> Any:
            output = await generate(request)
            self.request_facts[request.request_id] = request_facts(output)
            return output

        llm._generate_async = generate_keeping_facts

    async def __call__(self, batch: dict[str, Any]) -> AsyncIterator[dict[str, Any]]:
        async for out in self.engine(batch):
            for row in out.get(self.data_column, ()):
                row.update(self.request_facts.pop(row.get("request_id"), UNKNOWN_FACTS))
            yield out


def request_facts(output: Any) -> dict[str, Any]:
    """What vLLM's ``RequestOutput`` says of how its request ended and how long the engine worked on it
    (None without the engine's request stats: ``disable_log_stats``)."""
    finish = output.outputs[0].finish_reason if output.outputs else None
    stats = output.metrics
    inference = stats.last_token_ts - stats.scheduled_ts if stats is not None and stats.scheduled_ts else None
    return {FINISH_REASON_KEY: finish, INFERENCE_S_KEY: inference if inference is None or inference >= 0 else None}


def with_offline_batch_defaults(engine_kwargs: dict[str, Any]) -> dict[str, Any]:
    """``engine_kwargs`` with vLLM's defaults for offline batch inference (its ``LLM`` class, for this
    node's device) where they are not set. The engine Ray builds (``AsyncLLMEngine.from_engine_args``)
    takes an embedded engine's defaults instead: 128 sequences and 2048 batched tokens per step, where
    ``LLM.generate`` on the same GPU runs 256 / 8192 (A100, A10G, L4) or 1024 / 16384 (H100 and larger).
    Without chunked prefill the token budget stays as vLLM derives it (a whole prompt per step)."""
    from vllm.engine.arg_utils import EngineArgs
    from vllm.usage.usage_lib import UsageContext

    world_size = int(engine_kwargs.get("tensor_parallel_size", 1)) * int(engine_kwargs.get("pipeline_parallel_size", 1))
    tokens, seqs = EngineArgs.get_batch_defaults(world_size)
    kwargs = dict(engine_kwargs)
    kwargs.setdefault("max_num_seqs", seqs[UsageContext.LLM_CLASS])
    if kwargs.get("enable_chunked_prefill", True):
        kwargs.setdefault("max_num_batched_tokens", tokens[UsageContext.LLM_CLASS])
    return kwargs


def concurrent_batches(batch_size: int, engine_kwargs: dict[str, Any], configured: int | None) -> int:
    """Engine calls in flight per engine: enough that ``batch_size`` x them keeps the engine's
    ``max_num_seqs`` busy (Ray's default of 8 x 16 rows starves an engine of 256 or 1024 sequences)."""
    if configured:
        return configured
    return math.ceil(int(engine_kwargs.get("max_num_seqs") or LARGEST_DEFAULT_MAX_NUM_SEQS) / batch_size)


def engine_processor(
    *, model: str, engine_kwargs: dict[str, Any], reservation: EngineReservation, batch_size: int,
    max_concurrent_batches: int | None, runtime_env: dict[str, Any] | None, dynamic_lora_loading_path: str | None,
    log_engine_metrics: bool, preprocess: Callable[[dict[str, Any]], dict[str, Any]],
    postprocess: Callable[[dict[str, Any]], dict[str, Any]], preprocess_map_kwargs: dict[str, Any],
    postprocess_map_kwargs: dict[str, Any],
) -> Processor:
    """preprocess -> one engine per group of ``reservation`` (a fixed pool) -> postprocess, as a Ray
    ``Processor`` (rows that fail in the engine keep ``__inference_error__`` and bypass postprocess)."""
    from ray.data import ActorPoolStrategy
    from ray.llm._internal.batch.processor.base import OfflineProcessorConfig, Processor

    shape = reservation.shape
    engines = len(reservation.groups)
    concurrency = concurrent_batches(batch_size, engine_kwargs, max_concurrent_batches)
    # One GPU worker: vLLM's in-process executor on the actor's GPU. More: its Ray executor, whose
    # workers take the GPU bundles of the actor's group (captured as the actor's child tasks).
    one_worker = shape.cpu_only or shape.gpus == 1
    engine = StatefulStage(
        fn=EngineUDF,
        fn_constructor_kwargs={
            "batch_size": batch_size,
            "max_concurrent_batches": concurrency,
            "model": model,
            "engine_kwargs": {**engine_kwargs, "distributed_executor_backend": "uni" if one_worker else "ray"},
            "task_type": "generate",
            "dynamic_lora_loading_path": dynamic_lora_loading_path,
            "should_continue_on_error": True,
            "log_engine_metrics": log_engine_metrics,
        },
        # Named parameters where Ray 2.60 has them (its ``ray_remote_args`` go in Ray 2.64). It names none
        # for an actor's restarts or for one placement group per actor: ``max_restarts`` and
        # ``ray_remote_args_fn`` reach the operator through ``Processor``'s internal map_batches.
        map_batches_kwargs={
            "zero_copy_batch": True,
            "compute": ActorPoolStrategy(size=engines, max_concurrent_calls_per_actor=concurrency),
            "num_cpus": 1,
            "num_gpus": 1 if one_worker and not shape.cpu_only else 0,
            "max_restarts": ENGINE_RESTARTS,
            "ray_remote_args_fn": reservation.scheduling(),
            **({"runtime_env": runtime_env} if runtime_env else {}),
        },
    )
    config = OfflineProcessorConfig(model_source=model, batch_size=batch_size, should_continue_on_error=True)
    return Processor(config, [engine], preprocess=preprocess, postprocess=postprocess,
                     preprocess_map_kwargs=preprocess_map_kwargs, postprocess_map_kwargs=postprocess_map_kwargs)
