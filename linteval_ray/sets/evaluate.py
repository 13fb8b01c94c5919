"""The set's validation stage: one warm actor pool judging every model's rows, each into its own run.

The pool is the one a single run builds (``validation_stage``: size, CPUs, resources, one batch
in flight per actor, the same autoscaling), with one actor class in place of the single run's
fused one: ``SetEvaluateBatch`` unpacks a batch from the feed (``feed.py``), runs the stages of
its model that ride along in the actor (replay), judges it with the actor's one ``ValidateBatch``
(its validator, linters, sandbox and content cache serve every model), and stores the rows in
that model's run folder: the same shards, the same ``cache-stats/<actor>.json`` (this model's
share of the actor's cache counters: hits and builds made for its rows), the same out-of-service
records as a single run of that model writes. The store runs in the actor when a shard fits in a
batch, else in a store operator of its own that sends each row to its model's folder.

What reaches the driver is the single run's summary row plus ``set_model``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from pydantic import BaseModel, ConfigDict

from linteval_ray.config import RunConfig, ValidationConfig
from linteval_ray.pipeline.actor_records import stats_document
from linteval_ray.pipeline.store import SUMMARY_SCHEMA, store_batch, store_stage
from linteval_ray.pipeline.validation import VALIDATE_COLUMNS, ValidateBatch, validation_stage
from linteval_ray.schema.arrow import result_schema, rows_to_table
from linteval_ray.sets.feed import PACKED_ROWS, SET_MODEL, unpack
from linteval_ray.stage import BatchStage, require_columns
from linteval_ray.store.folder import RunFolder
from linteval_ray.validate.audit import AuditStats
from linteval_ray.validate.cache import CacheStats

SET_MODEL_FIELD = pa.field(SET_MODEL, pa.string())


class Lane(BaseModel):
    """One model as the set's validation actor sees it."""

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)

    name: str
    folder: RunFolder
    prompt_version: str | None
    front: tuple[BatchStage, ...] = ()  # the model's stages that run in the actor, before validating (replay)


class SetEvaluateBatch:
    """A warm validation actor for every model of the set (see the module docstring)."""

    def __init__(self, validation: ValidationConfig, lanes: Sequence[Lane], rows_per_shard: int | None) -> None:
        self._judge = ValidateBatch(validation, lanes[0].folder, None)
        self._lanes = {lane.name: lane for lane in lanes}
        self._steps = {lane.name: [part.in_process() for part in lane.front] for lane in lanes}
        self._counted = {lane.name: CacheStats() for lane in lanes}
        self._audited = {lane.name: AuditStats() for lane in lanes}
        self._rows_per_shard = rows_per_shard  # None: a store operator of its own writes the rows
        schema = SUMMARY_SCHEMA if rows_per_shard else result_schema()
        self._empty = schema.append(SET_MODEL_FIELD).empty_table()

    def __call__(self, packed: pa.Table) -> pa.Table:
        outputs = [self._judged(model, rows) for model, rows in unpack(packed)]
        return pa.concat_tables(outputs) if outputs else self._empty

    def _judged(self, model: str, rows: pa.Table) -> pa.Table:
        lane = self._lanes[model]
        for step in self._steps[model]:
            rows = step(rows)
        require_columns(rows, "validate", VALIDATE_COLUMNS)
        before, audit_before = self._judge.cache_stats(), self._judge.audit_stats()
        results = self._judge.evaluate(rows, lane.folder, lane.prompt_version)
        self._count(lane, before, self._judge.cache_stats(), self._judge.audit_stats().since(audit_before))
        table = rows_to_table(results)
        if self._rows_per_shard:
            table = store_batch(table, lane.folder, self._rows_per_shard)
        return table.append_column(SET_MODEL_FIELD, pa.array([model] * table.num_rows, pa.string()))

    def _count(self, lane: Lane, before: CacheStats, after: CacheStats, audited: AuditStats) -> None:
        """Add this batch's cache and audit counters to its model's and write them where its run keeps them."""
        counted = _added(self._counted[lane.name].model_dump(), _less(after.model_dump(), before.model_dump()))
        self._counted[lane.name] = CacheStats.model_validate(counted)
        self._audited[lane.name].add(audited)
        url = f"{lane.folder.cache_stats}/{self._judge.stats_name}"
        lane.folder.store.write_atomic(url, stats_document(self._counted[lane.name], self._audited[lane.name]))

    def close(self) -> None:
        self._judge.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # a finalizer must never raise
            self.close()


def set_store_batch(batch: pa.Table, folders: dict[str, RunFolder], rows_per_shard: int) -> pa.Table:
    """Result rows of any models → shards in each model's run folder; summary rows (+ ``set_model``) out."""
    outputs = []
    for model in sorted(set(batch.column(SET_MODEL).to_pylist())):
        rows = batch.filter(pc.equal(batch.column(SET_MODEL), model)).drop_columns([SET_MODEL])
        summary = store_batch(rows, folders[model], rows_per_shard)
        outputs.append(summary.append_column(SET_MODEL_FIELD, pa.array([model] * summary.num_rows, pa.string())))
    return pa.concat_tables(outputs) if outputs else SUMMARY_SCHEMA.append(SET_MODEL_FIELD).empty_table()


def set_stages(config: RunConfig, lanes: Sequence[Lane]) -> list[BatchStage]:
    """The set's validation (and, when a shard holds more rows than a batch, store) operators,
    on the feed's packed batches. ``config`` holds the set's validation settings."""
    pool = config.validation.pool
    single = validation_stage(config, lanes[0].folder, None)  # the single run's pool, sized for this cluster
    in_actor_store = pool.store_batch_size <= pool.batch_size
    kwargs: dict[str, Any] = single.fn_constructor_kwargs
    evaluate = BatchStage(
        name="validate",
        fn=SetEvaluateBatch,
        fn_constructor_kwargs={"validation": kwargs["validation"], "lanes": list(lanes),
                               "rows_per_shard": pool.store_batch_size if in_actor_store else None},
        map_batches_kwargs={**single.map_batches_kwargs, "batch_size": 1},  # one packed batch per call
        required_columns=(SET_MODEL, PACKED_ROWS),
        output_schema=(SUMMARY_SCHEMA if in_actor_store else result_schema()).append(SET_MODEL_FIELD),
    )
    if in_actor_store:
        return [evaluate]
    store = store_stage(config, lanes[0].folder)
    return [evaluate, BatchStage(
        name="store",
        fn=set_store_batch,
        fn_kwargs={"folders": {lane.name: lane.folder for lane in lanes}, "rows_per_shard": pool.store_batch_size},
        map_batches_kwargs=store.map_batches_kwargs,
        required_columns=(*store.required_columns, SET_MODEL),
        output_schema=SUMMARY_SCHEMA.append(SET_MODEL_FIELD),
    )]


def _less(after: dict[str, Any], before: dict[str, Any]) -> dict[str, Any]:
    return {key: _less(value, before.get(key, {})) if isinstance(value, dict) else value - before.get(key, 0)
            for key, value in after.items()}


def _added(into: dict[str, Any], more: dict[str, Any]) -> dict[str, Any]:
    return {key: _added(into.get(key, {}), value) if isinstance(value, dict) else into.get(key, 0) + value
            for key, value in more.items()} | {key: value for key, value in into.items() if key not in more}
