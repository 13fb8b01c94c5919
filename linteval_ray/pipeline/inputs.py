"""The rows an evaluation starts from: one input row per (sample, draw) of every valid record,
and an ``invalid_input`` result row per (malformed row, draw), so nothing is silently lost.

``run`` makes them in Ray Data's stream (``pipeline/source.py``); ``validate`` makes them here,
in this process (``load_local_inputs``). Both go through the same per-row checker
(``linteval_ray.load.RowChecker``) and the same two functions below.
"""

from __future__ import annotations

import logging
from contextlib import closing
from dataclasses import dataclass
from typing import Any

from linteval_ray.config import RunConfig
from linteval_ray.load.loader import InvalidRow
from linteval_ray.load.presets import resolve_source
from linteval_ray.load.readers import iter_rows
from linteval_ray.load.split import split_files
from linteval_ray.schema import LintEvalRecord, ResultRow, Status
from linteval_ray.schema.rows import InputRow
from linteval_ray.schema.task import LINTEVAL_TASK, TaskRecord
from linteval_ray.store.fs import ObjectStore
from linteval_ray.tasks.base import ReadContext
from linteval_ray.tasks.registry import task
from linteval_ray.validate.cache import ContentCache, default_cache_dir

log = logging.getLogger(__name__)


def input_rows(record: LintEvalRecord | TaskRecord, draws: int) -> list[dict[str, Any]]:
    """The input rows (``InputRow`` columns) of one valid record, one per draw."""
    record_json = record.model_dump_json()
    return [InputRow.of(record, draw, record_json).model_dump() for draw in range(draws)]


def invalid_input_rows(sample_id: str, draws: int, error: str) -> list[ResultRow]:
    """The ``invalid_input`` result rows of one row that failed to load, one per draw."""
    return [ResultRow(sample_id=sample_id, draw=draw, row_id=ResultRow.make_row_id(sample_id, draw),
                      status=Status.INVALID_INPUT, error=error) for draw in range(draws)]


@dataclass(frozen=True)
class LocalInputs:
    """The inputs of an in-process evaluation (a few samples: here bodies may sit in memory)."""

    rows: list[dict[str, Any]]  # InputRow columns, one row per (sample, draw)
    invalid: list[ResultRow]  # one per (malformed input row, draw)


def load_local_inputs(config: RunConfig) -> LocalInputs:
    """Read and check the configured split in this process, file by file in order, by the run's
    task's reader (``config`` is resolved: ``pipeline/dataset.py``), storing what its judging reads
    back in this node's content cache."""
    rows: list[dict[str, Any]] = []
    invalid: list[ResultRow] = []
    draws = config.generation.n
    spec = task(config.task.name or LINTEVAL_TASK)
    store = ObjectStore(storage=config.storage)
    cache = ContentCache(config.validation.cache_url, default_cache_dir() / "cache", store)
    reader = spec.reader(config.dataset, spec.options(config.task.options), ReadContext(store=store, cache=cache))
    for url in split_files(resolve_source(config.dataset.source), store):
        with closing(iter_rows(url, config.storage, columns=reader.columns)) as source:
            for checked in reader.checked(source):
                if isinstance(checked, InvalidRow):
                    log.warning("input row skipped: %s", checked.error)
                    invalid += invalid_input_rows(checked.sample_id, draws, str(checked.error))
                else:
                    rows += input_rows(checked, draws)
    return LocalInputs(rows=rows, invalid=invalid)
