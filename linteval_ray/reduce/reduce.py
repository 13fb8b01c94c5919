"""Shards → ``metrics.json`` and ``results.parquet``: the reduction of one run.

Pure in the layering sense: the report is written by the caller (``linteval-ray run``,
``linteval-ray reduce``) from the reduction's rows and metrics; ``report`` imports this
package, never the other way round.
"""

from __future__ import annotations

import json
import logging

from pydantic import BaseModel, ConfigDict, Field

from linteval_ray.config import HealthConfig
from linteval_ray.reduce.metrics import RunMetrics, compute
from linteval_ray.schema.table import ResultTable
from linteval_ray.schema.task import LINTEVAL_TASK
from linteval_ray.store.folder import RunFolder
from linteval_ray.store.shards import compact_results
from linteval_ray.tasks.registry import task

log = logging.getLogger(__name__)


class Reduction(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    output: str
    rows: int
    duplicates: int
    metrics: RunMetrics
    results: ResultTable = Field(default_factory=ResultTable.empty, exclude=True, repr=False,
                                 description="the deduplicated rows (sorted by row_id), for the report")


def metrics_document(metrics: RunMetrics) -> dict[str, object]:
    """``metrics.json``: a LintEval run's as it always was (no task keys), another task's with its own."""
    document: dict[str, object] = metrics.model_dump(mode="json")
    if metrics.task == LINTEVAL_TASK:
        del document["task"], document["task_metrics"]
    return document


def reduce_run(folder: RunFolder, health: HealthConfig | None = None) -> Reduction:
    results, duplicates = compact_results(folder)  # writes results.parquet
    metrics = compute(results, health)
    metrics.task_metrics = task(metrics.task).metrics(results, metrics)
    body = json.dumps(metrics_document(metrics), indent=2, sort_keys=True).encode()
    folder.store.write_atomic(folder.metrics, body)
    for warning in metrics.warnings():
        log.warning("%s", warning)
    log.info("reduced %d rows (%d duplicates dropped) into %s", len(results), duplicates, folder.metrics)
    return Reduction(output=folder.url, rows=len(results), duplicates=duplicates, metrics=metrics, results=results)
