"""``linteval-ray reduce OUTPUT``: shards → metrics.json, results.parquet, report."""

from __future__ import annotations

import json
import logging

from pydantic import BaseModel

from linteval_ray.config import StorageConfig
from linteval_ray.reduce.metrics import RunMetrics, compute
from linteval_ray.store.fs import write_bytes_atomic
from linteval_ray.store.shards import read_rows, write_results_table

log = logging.getLogger(__name__)

METRICS_FILE = "metrics.json"


class Reduction(BaseModel):
    output: str
    rows: int
    duplicates: int
    metrics: RunMetrics


def reduce_run(output: str, storage: StorageConfig | None = None, report: bool = True) -> Reduction:
    rows, duplicates = read_rows(output, storage)
    metrics = compute(rows)
    body = json.dumps(metrics.model_dump(mode="json"), indent=2, sort_keys=True).encode()
    write_bytes_atomic(f"{output}/{METRICS_FILE}", body, storage)
    write_results_table(output, rows, storage)
    if report:
        from linteval_ray.report.render import write_report

        write_report(output, rows, metrics, storage)
    for warning in metrics.warnings():
        log.warning("%s", warning)
    log.info("reduced %d rows (%d duplicates dropped) into %s/%s", len(rows), duplicates, output, METRICS_FILE)
    return Reduction(output=output, rows=len(rows), duplicates=duplicates, metrics=metrics)
