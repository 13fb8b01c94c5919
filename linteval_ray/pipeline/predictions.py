"""``linteval-ray generate``: generation only, its predictions written for a later scoring.

GPU time and CPU time can then be spent on different clusters or days: ``generate`` writes
``OUTPUT/predictions/part-*.parquet`` (one row per sample and draw: ``row_id``, ``sample_id``,
``draw`` and the generation columns with their facts) and ``run --predictions OUTPUT/predictions``
scores them on CPU nodes, through the replay backend. Each streamed batch is one part written
atomically, so a killed ``generate`` keeps what it finished; rerunning it generates only the rows
that have no answer yet (a row whose generation failed is tried again). ``generation.json`` in the
folder records what generated it; a rerun with another model, prompt or sampling is refused.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import uuid
from typing import TYPE_CHECKING, Any, cast

from pydantic import BaseModel

from linteval_ray.config import RunConfig
from linteval_ray.errors import LintEvalError
from linteval_ray.generate.registry import build_backend
from linteval_ray.pipeline.inputs import load_inputs
from linteval_ray.pipeline.run import _init_ray, resolve_output
from linteval_ray.schema.rows import GENERATION_COLUMNS
from linteval_ray.store.folder import PREDICTIONS_RECORD, RunFolder
from linteval_ray.store.fs import ObjectStore, join

if TYPE_CHECKING:
    import pyarrow as pa

log = logging.getLogger(__name__)

PREDICTION_COLUMNS = ("row_id", "sample_id", "draw", *GENERATION_COLUMNS)


class PredictionsMismatchError(LintEvalError):
    """The predictions folder holds another generation (model, prompt, sampling or data)."""


class GenerationRecord(BaseModel):
    """``generation.json``: what made the predictions of a folder."""

    fingerprint: str
    model: str
    prompt_version: str | None
    backend: str
    generation: dict[str, Any]


class GenerateOutcome(BaseModel):
    folder: str
    resumed_rows: int
    new_rows: int
    errors: int


def generate(config: RunConfig) -> GenerateOutcome:
    """Generate every (sample, draw) of the split into ``OUTPUT/predictions`` (resuming)."""
    _, output = resolve_output(config)
    run = RunFolder.open(output, config.storage)
    folder, store = run.predictions, run.store
    inputs = load_inputs(config)
    backend = build_backend(config.generation, config.storage)
    _init_ray(config)
    backend.preflight()
    record = GenerationRecord(fingerprint=_fingerprint(config, inputs.rows), model=backend.model_name(),
                              prompt_version=backend.prompt_version, backend=config.generation.backend,
                              generation=config.generation.model_dump(mode="json", exclude={"health"}))
    _claim_folder(folder, record, store)

    done = answered_row_ids(folder, store)
    todo = [r for r in inputs.rows if r["row_id"] not in done]
    log.info("%d rows: %d already generated, %d to generate -> %s", len(inputs.rows), len(inputs.rows) - len(todo),
             len(todo), folder)
    errors = 0
    if todo:
        errors = _generate_rows(backend.stage(), todo, folder, store)
    return GenerateOutcome(folder=folder, resumed_rows=len(inputs.rows) - len(todo), new_rows=len(todo),
                           errors=errors)


def _generate_rows(stage: Any, todo: list[dict[str, Any]], folder: str, store: ObjectStore) -> int:
    """Stream ``todo`` through the generation stage, one atomic Parquet part per batch; the errors."""
    import pyarrow.parquet as pq
    import ray.data

    ds = stage.apply(ray.data.from_items(todo, override_num_blocks=max(1, min(len(todo), 64))))
    errors = 0
    for batch in ds.iter_batches(batch_format="pyarrow", batch_size=None):
        table = cast("pa.Table", batch).select(list(PREDICTION_COLUMNS))
        errors += table.num_rows - table.column("generation_error").null_count
        buffer = io.BytesIO()
        pq.write_table(table, buffer)
        store.write_atomic(join(folder, f"part-{uuid.uuid4().hex}.parquet"), buffer.getvalue())
    return errors


def answered_row_ids(folder: str, store: ObjectStore) -> set[str]:
    """Rows of the folder that got an answer (a failed generation is tried again)."""
    import pyarrow.parquet as pq

    done: set[str] = set()
    for url in store.list_files(folder, ".parquet"):
        table = pq.read_table(io.BytesIO(store.read_bytes(url)), columns=["row_id", "generation_error"])
        done.update(r["row_id"] for r in table.to_pylist() if not r["generation_error"])
    return done


def _claim_folder(folder: str, record: GenerationRecord, store: ObjectStore) -> None:
    url = join(folder, PREDICTIONS_RECORD)
    if (existing := store.read_if_exists(url)) is not None:
        previous = GenerationRecord.model_validate_json(existing)
        if previous.fingerprint != record.fingerprint:
            raise PredictionsMismatchError(
                f"{folder} holds predictions of {previous.model!r} (prompt {previous.prompt_version}) generated "
                "with other data, model, prompt or sampling; choose a new --output")
        return
    store.write_atomic(url, record.model_dump_json(indent=2).encode())


def _fingerprint(config: RunConfig, rows: list[dict[str, Any]]) -> str:
    parts = {"generation": config.generation.model_dump(mode="json", exclude={"health"}),
             "rows": sorted(r["row_id"] for r in rows)}
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]
