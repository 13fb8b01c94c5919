"""The validation and store stages (generation's comes from its backend): their Ray Data
callables — the CPU validation actor and the shard writer — and the ``Stage`` of each."""

from __future__ import annotations

import contextlib
import logging
import os
import socket
from typing import Any

import pyarrow as pa

from linteval_ray.config import RunConfig, StorageConfig, ValidationConfig
from linteval_ray.pipeline.stage import BatchStage
from linteval_ray.schema.arrow import result_schema, rows_to_table
from linteval_ray.schema.rows import GENERATION_COLUMNS
from linteval_ray.store.shards import write_shard

log = logging.getLogger(__name__)

STORE_NUM_CPUS = 0.1  # one Parquet encode and one write per batch
SUMMARY_SCHEMA = pa.schema(
    [("row_id", pa.string()), ("status", pa.string()), ("pass_at_1", pa.bool_()),
     ("language", pa.string()), ("total_s", pa.float64()), ("shard", pa.string())]
)


class ValidateBatch:
    """A warm validation actor: toolchain, linters, sandbox and caches live across batches.

    Ray Data drops the instance when the actor exits gracefully (its worker's
    ``__ray_shutdown__``); ``__del__`` then closes the validator, removing its scratch dir.
    A killed actor leaves its dir behind: nothing runs in a SIGKILLed process."""

    def __init__(self, validation: ValidationConfig, storage: StorageConfig, prompt_version: str | None):
        from linteval_ray.validate.engine import Validator

        self._validator: Validator | None = Validator(validation, storage)
        self._prompt_version = prompt_version
        self._worker = f"{socket.gethostname()}:{os.getpid()}"

    def __call__(self, batch: pa.Table) -> pa.Table:
        if self._validator is None:
            raise RuntimeError("ValidateBatch was closed")
        results = self._validator.evaluate_batch(batch.to_pylist())
        for result in results:
            result.prompt_version = self._prompt_version
            result.worker = self._worker
        return rows_to_table(results)

    def close(self) -> None:
        """Stop the linters and the sandbox, remove the scratch dir; a second call does nothing."""
        validator, self._validator = getattr(self, "_validator", None), None
        if validator is not None:
            validator.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # a finalizer must never raise
            self.close()


def store_batch(batch: pa.Table, output: str, storage: StorageConfig) -> pa.Table:
    """Write a batch of result rows as one atomic shard; pass on a small summary."""
    name = write_shard(output, batch, storage)
    timings: list[dict[str, Any]] = batch.column("timings").to_pylist()
    return pa.table(
        {
            "row_id": batch.column("row_id"),
            "status": batch.column("status"),
            "pass_at_1": batch.column("pass_at_1"),
            "language": batch.column("language"),
            "total_s": [t["total_s"] if t else 0.0 for t in timings],
            "shard": [name] * batch.num_rows,
        },
        schema=SUMMARY_SCHEMA,
    )


def validation_stage(config: RunConfig, prompt_version: str | None) -> BatchStage:
    """The CPU actor pool judging every generated row (needs Ray up: it sizes the pool)."""
    from ray.data import ActorPoolStrategy

    pool = config.validation.pool
    min_actors, max_actors = actor_pool_size(config)
    map_kwargs: dict[str, Any] = {
        "compute": ActorPoolStrategy(min_size=min_actors, max_size=max_actors),
        "batch_size": pool.batch_size,
        "batch_format": "pyarrow",
        "num_cpus": pool.num_cpus,
    }
    if pool.resources:
        map_kwargs["resources"] = pool.resources
    # Ray Data restarts a dead actor and retries its batch (max_restarts / max_task_retries
    # default to -1 for actor pools): a killed worker delays rows, it never loses them.
    return BatchStage(
        name="validate",
        fn=ValidateBatch,
        fn_constructor_kwargs={"validation": config.validation, "storage": config.storage,
                               "prompt_version": prompt_version},
        map_batches_kwargs=map_kwargs,
        required_columns=("sample_id", "draw", "record_json", *GENERATION_COLUMNS),
        output_schema=result_schema(),
    )


def store_stage(config: RunConfig, output: str) -> BatchStage:
    """Result rows → atomic shards under ``output``, a summary row per result row out."""
    return BatchStage(
        name="store",
        fn=store_batch,
        fn_kwargs={"output": output, "storage": config.storage},
        map_batches_kwargs={"batch_size": config.validation.pool.store_batch_size, "batch_format": "pyarrow",
                            "num_cpus": STORE_NUM_CPUS},
        required_columns=tuple(result_schema().names),
        output_schema=SUMMARY_SCHEMA,
    )


def actor_pool_size(config: RunConfig) -> tuple[int, int]:
    """(min, max) validation actors: as configured, else as many as the cluster's CPUs hold."""
    import ray

    pool = config.validation.pool
    if pool.max_actors is not None:
        return pool.min_actors, max(pool.min_actors, pool.max_actors)
    cpus = ray.cluster_resources().get("CPU", 1.0)  # type: ignore[no-untyped-call]  # ray leaves it untyped
    most = max(1, int((cpus - 0.5) // pool.num_cpus))
    return min(pool.min_actors, most), most
