"""Shards → ``metrics.json`` and ``results.parquet``: the reduction of one run.

Pure in the layering sense: the report is written by the caller (``linteval-ray run``,
``linteval-ray reduce``) from the reduction's rows and metrics; ``report`` imports this
package, never the other way round.
"""

from __future__ import annotations

import json
import logging

from pydantic import BaseModel, Field

from linteval_ray.config import HealthConfig
from linteval_ray.reduce.metrics import RunMetrics, compute
from linteval_ray.schema import ResultRow
from linteval_ray.store.folder import RunFolder
from linteval_ray.store.shards import read_rows, write_results_table

log = logging.getLogger(__name__)


class Reduction(BaseModel):
    output: str
    rows: int
    duplicates: int
    metrics: RunMetrics
    results: list[ResultRow] = Field(default_factory=list, exclude=True, repr=False,
                                     description="the deduplicated rows, for the report")


def reduce_run(folder: RunFolder, health: HealthConfig | None = None) -> Reduction:
    rows, duplicates = read_rows(folder)
    metrics = compute(rows, health)
    body = json.dumps(metrics.model_dump(mode="json"), indent=2, sort_keys=True).encode()
    folder.store.write_atomic(folder.metrics, body)
    write_results_table(folder, rows)
    for warning in metrics.warnings():
        log.warning("%s", warning)
    log.info("reduced %d rows (%d duplicates dropped) into %s", len(rows), duplicates, folder.metrics)
    return Reduction(output=folder.url, rows=len(rows), duplicates=duplicates, metrics=metrics, results=rows)
