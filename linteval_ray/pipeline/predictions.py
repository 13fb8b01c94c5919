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

import functools
import io
import logging
import uuid
from typing import TYPE_CHECKING, Any, cast

from pydantic import BaseModel, Field

from linteval_ray.config import RunConfig
from linteval_ray.config.section import public_settings, result_settings, without_credentials
from linteval_ray.errors import LintEvalError
from linteval_ray.generate.registry import build_backend
from linteval_ray.load.presets import resolve_source
from linteval_ray.pipeline.dataset import identity_in_background, resolved
from linteval_ray.pipeline.run import init_ray, resolve_output
from linteval_ray.schema.rows import GENERATION_COLUMNS, INPUT_COLUMNS
from linteval_ray.store.folder import PREDICTIONS_RECORD, RunFolder
from linteval_ray.store.fs import ObjectStore, join
from linteval_ray.store.manifest import FINGERPRINT_SCHEME, digest

if TYPE_CHECKING:
    import pyarrow as pa
    import ray
    import ray.data

log = logging.getLogger(__name__)

PREDICTION_COLUMNS = ("row_id", "sample_id", "draw", *GENERATION_COLUMNS)


class PredictionsMismatchError(LintEvalError):
    """The predictions folder holds another generation (model, prompt, sampling or data)."""


class GenerationRecord(BaseModel):
    """``generation.json``: what made the predictions of a folder."""

    fingerprint: str
    fingerprint_scheme: int = 1  # store/manifest.py FINGERPRINT_SCHEME
    model: str
    prompt_version: str | None
    backend: str
    generation: dict[str, Any]
    sampling: dict[str, Any] = Field(default_factory=dict, description="what every request carried (the "
                                     "manifest's ``sampling``: generate/sampling.py EffectiveSampling)")


class GenerateOutcome(BaseModel):
    folder: str
    resumed_rows: int
    new_rows: int
    errors: int


def generate(config: RunConfig) -> GenerateOutcome:
    """Generate every (sample, draw) of the split into ``OUTPUT/predictions`` (resuming)."""
    config = resolved(config)  # the task decides the rows and the prompt
    _, output = resolve_output(config)
    run = RunFolder.open(output, config.storage)
    folder, store = run.predictions, run.store
    url = resolve_source(config.dataset.source)
    dataset_sha = identity_in_background(config, url).result().sha256
    backend = build_backend(config.generation, config.storage)
    init_ray(config)
    backend.preflight()
    record = GenerationRecord(fingerprint=_fingerprint(config, dataset_sha), fingerprint_scheme=FINGERPRINT_SCHEME,
                              model=without_credentials(backend.model_name()), prompt_version=backend.prompt_version,
                              backend=config.generation.backend, generation=public_settings(config.generation))
    _claim_folder(folder, record, store)

    done = answered_row_ids(folder, store)
    log.info("%d rows already generated; streaming %s -> %s", len(done), url, folder)
    with backend.engines():
        if (sampling := backend.effective_sampling()) is not None:  # known here: the model's defaults read
            record.sampling = sampling.model_dump()
            store.write_atomic(join(folder, PREDICTIONS_RECORD), record.model_dump_json(indent=2).encode())
        new_rows, errors = _generate_rows(backend.stage(), _rows_to_generate(config, url, store, done), folder, store)
    return GenerateOutcome(folder=folder, resumed_rows=len(done), new_rows=new_rows, errors=errors)


def _rows_to_generate(config: RunConfig, url: str, store: ObjectStore, done: set[str]) -> ray.data.Dataset:
    """The split's checked input rows (streamed, as ``run`` reads it) without the answered ones
    and without malformed rows (they have nothing to prompt with; ``run`` records them), in
    blocks of one batch, all in the read's task."""
    import pyarrow as pa
    import ray

    from linteval_ray.pipeline.source import batches_stage, read_inputs, read_num_cpus

    done_ref = ray.put(pa.array(sorted(done), pa.string()))
    unanswered = read_inputs(config, url, store).map_batches(
        functools.partial(_unanswered, done=done_ref), batch_format="pyarrow", batch_size=None,
        num_cpus=read_num_cpus(url))
    return batches_stage(config, url).apply(unanswered)


def _unanswered(batch: pa.Table, done: ray.ObjectRef[pa.Array]) -> pa.Table:
    import pyarrow.compute as pc

    from linteval_ray.pipeline.source import LOAD_ERROR, done_ids_of

    answered = pc.is_in(batch.column("row_id"), value_set=done_ids_of(done))
    keep = pc.and_(pc.is_null(batch.column(LOAD_ERROR)), pc.invert(answered))
    return batch.filter(keep).select(list(INPUT_COLUMNS))


def _generate_rows(stage: Any, rows: ray.data.Dataset, folder: str, store: ObjectStore) -> tuple[int, int]:
    """Stream ``rows`` through the generation stage, one atomic Parquet part per batch; the rows
    generated and how many of them failed."""
    import pyarrow.parquet as pq

    generated = errors = 0
    for batch in stage.apply(rows).iter_batches(batch_format="pyarrow", batch_size=None):
        table = cast("pa.Table", batch).select(list(PREDICTION_COLUMNS))
        if not table.num_rows:
            continue
        generated += table.num_rows
        errors += table.num_rows - table.column("generation_error").null_count
        buffer = io.BytesIO()
        pq.write_table(table, buffer)
        store.write_atomic(join(folder, f"part-{uuid.uuid4().hex}.parquet"), buffer.getvalue())
    return generated, errors


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
        if previous.fingerprint_scheme != record.fingerprint_scheme:
            raise PredictionsMismatchError(f"{folder} holds predictions of an earlier linteval-ray, whose fingerprint "
                                           "covered other settings: this version cannot add to them; choose a new "
                                           "--output")
        if previous.fingerprint != record.fingerprint:
            raise PredictionsMismatchError(
                f"{folder} holds predictions of {previous.model!r} (prompt {previous.prompt_version}) generated "
                "with other data, model, prompt or sampling; choose a new --output")
        return
    store.write_atomic(url, record.model_dump_json(indent=2).encode())


def _fingerprint(config: RunConfig, dataset_sha: str) -> str:
    """The settings that can change an answer (speed settings may change between attempts)."""
    return digest({"generation": result_settings(config.generation), "dataset": result_settings(config.dataset),
                   "data": dataset_sha})
