"""The store stage: result rows written as atomic shards of the run folder, a summary row each out."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from linteval_ray.config import RunConfig
from linteval_ray.pipeline.validation import actor_pool_size
from linteval_ray.schema.arrow import result_schema
from linteval_ray.stage import BatchStage
from linteval_ray.store.folder import RunFolder
from linteval_ray.store.shards import write_shard

STORE_NUM_CPUS = 0.1  # one Parquet encode and one write per batch
SUMMARY_SCHEMA = pa.schema(
    [("row_id", pa.string()), ("status", pa.string()), ("pass_at_1", pa.bool_()),
     ("language", pa.string()), ("total_s", pa.float64()), ("shard", pa.string())]
)


def store_batch(batch: pa.Table, folder: RunFolder, rows_per_shard: int) -> pa.Table:
    """Write a batch of result rows as atomic shards of at most ``rows_per_shard`` rows; pass on
    a small summary."""
    names: list[str] = []
    for start in range(0, batch.num_rows, rows_per_shard):
        shard = batch.slice(start, rows_per_shard)
        names += [write_shard(folder, shard)] * shard.num_rows
    timings: list[dict[str, Any]] = batch.column("timings").to_pylist()
    return pa.table(
        {
            "row_id": batch.column("row_id"),
            "status": batch.column("status"),
            "pass_at_1": batch.column("pass_at_1"),
            "language": batch.column("language"),
            "total_s": [t["total_s"] if t else 0.0 for t in timings],
            "shard": names,
        },
        schema=SUMMARY_SCHEMA,
    )


def store_stage(config: RunConfig, folder: RunFolder) -> BatchStage:
    """Result rows → atomic shards in the run folder, a summary row per result row out. As an
    operator of its own, at most one task per validation actor at once: a task asking 0.1 CPU
    would otherwise let Ray start a Python worker (~2-3 CPU-s of imports) for each of up to ten
    per free CPU, under load when writes wait, for a job that takes milliseconds."""
    from ray.data import TaskPoolStrategy

    return BatchStage(
        name="store",
        fn=store_batch,
        fn_kwargs={"folder": folder, "rows_per_shard": config.validation.pool.store_batch_size},
        map_batches_kwargs={"batch_size": config.validation.pool.store_batch_size, "batch_format": "pyarrow",
                            "num_cpus": STORE_NUM_CPUS, "compute": TaskPoolStrategy(size=actor_pool_size(config)[1])},
        required_columns=tuple(result_schema().names),
        output_schema=SUMMARY_SCHEMA,
    )
