"""Ray Data stage callables: the CPU validation actor and the shard writer."""

from __future__ import annotations

import logging
import os
import socket
from typing import Any

import pyarrow as pa

from linteval_ray.config import StorageConfig, ValidationConfig
from linteval_ray.schema.arrow import rows_to_table
from linteval_ray.store.shards import write_shard

log = logging.getLogger(__name__)

SUMMARY_SCHEMA = pa.schema(
    [("row_id", pa.string()), ("status", pa.string()), ("pass_at_1", pa.bool_()),
     ("language", pa.string()), ("total_s", pa.float64()), ("shard", pa.string())]
)


class ValidateBatch:
    """A warm validation actor: toolchain, linters, sandbox and caches live across batches."""

    def __init__(self, validation: ValidationConfig, storage: StorageConfig, prompt_version: str | None):
        from linteval_ray.validate.engine import Validator

        self._validator = Validator(validation, storage)
        self._prompt_version = prompt_version
        self._worker = f"{socket.gethostname()}:{os.getpid()}"

    def __call__(self, batch: pa.Table) -> pa.Table:
        results = self._validator.evaluate_batch(batch.to_pylist())
        for result in results:
            result.prompt_version = self._prompt_version
            result.worker = self._worker
        return rows_to_table(results)


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
