"""The reduction of a real run folder (shards written by tests/pipeline's runs: evaluated rows that
passed, failed and held no program, invalid input rows, a shard written twice) gives, byte for byte,
the metrics.json and results.parquet that the reduction over ResultRow models gave before it read
columns (files kept in tests/reduce/data/pipeline-run, written by that earlier code)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow.parquet as pq

from linteval_ray.reduce.reduce import reduce_run
from linteval_ray.store.folder import RunFolder
from linteval_ray.store.shards import read_rows

RUN = Path(__file__).parent / "data" / "pipeline-run"


def test_metrics_and_results_equal_the_model_based_reduction(tmp_path: Path) -> None:
    shutil.copytree(RUN / "shards", tmp_path / "shards")
    reduction = reduce_run(RunFolder.open(str(tmp_path)))
    assert (reduction.rows, reduction.duplicates) == (7, 4)
    assert (tmp_path / "metrics.json").read_bytes() == (RUN / "metrics-before-columnar.json").read_bytes()
    # The columns added since (a row's task and facets) are null in a LintEval run.
    results = pq.read_table(tmp_path / "results.parquet")
    assert results.column("task").null_count == results.column("facets").null_count == results.num_rows
    assert results.drop_columns(["task", "facets"]).equals(pq.read_table(RUN / "results-before-columnar.parquet"))


def test_the_result_table_holds_the_rows_the_models_hold(tmp_path: Path) -> None:
    shutil.copytree(RUN / "shards", tmp_path / "shards")
    folder = RunFolder.open(str(tmp_path))
    rows, _ = read_rows(folder)
    table = reduce_run(folder).results
    assert [r.row_id for r in rows] == sorted(r.row_id for r in rows) == table.column("row_id")
    assert table.rows(range(len(table))) == rows
