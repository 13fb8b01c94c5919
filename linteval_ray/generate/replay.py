"""Replay: revisions from a predictions file or from the dataset's own columns.

Lets a run be reproduced (or a model scored offline) without any model: the
bundled data set carries a reference revision per sample, and a predictions
file carries ``sample_id`` (+ optional ``draw``) with ``raw_response`` and/or
``revised_code``. A row with no prediction gets a ``generation_error``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import ConfigDict, ValidationError, field_validator

from linteval_ray.config import ReplayGeneration, StorageConfig
from linteval_ray.errors import LintEvalError
from linteval_ray.generate.base import GenerationBackend, failed, with_generation_columns
from linteval_ray.generate.registry import register_backend
from linteval_ray.schema.record import to_unicode
from linteval_ray.schema.result import GENERATION_FACTS, GenerationFacts
from linteval_ray.schema.rows import Generation, generation_schema, record_of
from linteval_ray.schema.task import LINTEVAL_TASK, task_of_record_json
from linteval_ray.stage import BatchStage

if TYPE_CHECKING:
    import pyarrow as pa

REFERENCE_MODEL = "reference-revision"
REPLAY_NUM_CPUS = 0.1  # a dictionary lookup per row


class PredictionsError(LintEvalError, ValueError):
    """A predictions file is missing or malformed; the message names the file (and the line)."""


class Prediction(GenerationFacts):
    """One row of a predictions file (the generation facts are optional columns)."""

    model_config = ConfigDict(extra="ignore")

    sample_id: str
    draw: int = 0
    raw_response: str | None = None
    revised_code: str | None = None
    tokens_used: int | None = None
    model: str | None = None
    generation_error: str | None = None  # a folder written by `linteval-ray generate` keeps its failed rows

    @field_validator("raw_response", "revised_code", mode="before")
    @classmethod
    def _valid_text(cls, value: object) -> object:
        # Model output is untrusted: undecodable bytes become U+FFFD rather than failing the file.
        return to_unicode(value) if isinstance(value, str) else value


Predictions = dict[tuple[str, int], Prediction]  # (sample_id, draw) → its prediction


class ReplayBackend(GenerationBackend):
    """Attach recorded responses to prompt rows (no model involved)."""

    name = "replay"

    def __init__(self, predictions: list[Prediction] | None = None, model: str | None = None):
        self._predictions: Predictions | None = (
            None if predictions is None else {(p.sample_id, p.draw): p for p in predictions}
        )
        self._model = model or (REFERENCE_MODEL if predictions is None else "predictions")

    @classmethod
    def from_config(cls, generation: ReplayGeneration, storage: StorageConfig | None) -> ReplayBackend:
        """The predictions file's answers, else the dataset's own revisions."""
        path = generation.replay.predictions
        return cls() if path is None else cls(load_predictions(path, storage))

    @property
    def prompt_version(self) -> None:
        """Replay sent no prompt of ours."""
        return None

    def model_name(self) -> str:
        return self._model

    @property
    def runs_in_validation_actor(self) -> bool:
        """A dictionary lookup per row: it rides along in the validation actor."""
        return True

    def stage(self) -> BatchStage:
        return BatchStage(
            name=self.name,
            fn=replay_batch,
            fn_kwargs={"lookup": self._predictions, "model": self._model},
            # batch_size=None keeps the input's blocks: merging them would starve the validation pool.
            map_batches_kwargs={"batch_format": "pyarrow", "batch_size": None, "num_cpus": REPLAY_NUM_CPUS},
            required_columns=("sample_id", "draw", "record_json"),
            output_schema=generation_schema(),
            keeps_input_columns=True,
        )


def replay_batch(batch: pa.Table, lookup: Predictions | None, model: str) -> pa.Table:
    """One batch of prompt rows with their recorded responses."""
    return with_generation_columns(batch, [_replay_row(row, lookup, model) for row in batch.to_pylist()])


def _replay_row(row: dict[str, Any], lookup: Predictions | None, model: str) -> Generation:
    prediction = _dataset_revision(row) if lookup is None else lookup.get((row["sample_id"], row["draw"]))
    if prediction is None:
        return failed(f"no prediction for sample {row['sample_id']} draw {row['draw']}", model)
    given = prediction.raw_response is not None or prediction.revised_code is not None
    missing = None if given else "prediction has neither raw_response nor revised_code"
    return Generation(
        raw_response=prediction.raw_response,
        revised_code=prediction.revised_code,
        tokens_used=prediction.tokens_used,
        generation_error=prediction.generation_error or missing,
        model=prediction.model or model,
        **{name: getattr(prediction, name) for name in GENERATION_FACTS},
    )


def _dataset_revision(row: dict[str, Any]) -> Prediction | None:
    """The reference revision the dataset row itself carries (a LintEval row; another task's
    rows carry no answer: None)."""
    if task_of_record_json(row["record_json"]) != LINTEVAL_TASK:
        return None
    record = record_of(row)
    return Prediction(
        sample_id=record.sample_id,
        raw_response=record.raw_response or None,
        # The dataset's revised_code is what ITS extraction produced; re-extract from the
        # response when there is one so replay exercises our extraction too.
        revised_code=None if record.raw_response else (record.revised_code or None),
        tokens_used=record.tokens_used,
    )


def load_predictions(url: str, storage: StorageConfig | None = None) -> list[Prediction]:
    """Read a predictions JSONL or Parquet file; a malformed line names its line number."""
    import json

    from linteval_ray.store.fs import ObjectStore

    store = ObjectStore(storage=storage)
    fs, path = store.filesystem(url)
    if not fs.exists(path):
        raise PredictionsError(f"{url}: no such predictions file or folder")
    if fs.isdir(path):  # a folder of Parquet parts (`linteval-ray generate`): an answer wins over a failure
        parts = [p for p in sorted(fs.find(path)) if p.endswith(".parquet")]
        if not parts:
            raise PredictionsError(f"{url}: a folder without predictions (*.parquet)")
        rows = [_prediction(r, f"{part}: row {n}") for part in parts for n, r in enumerate(_parquet_rows(fs, part))]
        return sorted(rows, key=lambda p: p.generation_error is None)
    if path.endswith(".parquet"):
        return [_prediction(r, f"{url}: row {n}") for n, r in enumerate(_parquet_rows(fs, path))]
    predictions = []
    with store.open(url, "rt", compression="infer") as f:
        for number, line in enumerate(f, start=1):
            if line.strip():
                try:
                    row = json.loads(line)
                except ValueError as exc:
                    raise PredictionsError(f"{url}: line {number}: invalid JSON: {exc}") from None
                predictions.append(_prediction(row, f"{url}: line {number}"))
    return predictions


def _prediction(row: Any, where: str) -> Prediction:
    try:
        return Prediction.model_validate(row)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        field = ".".join(str(part) for part in first["loc"])
        raise PredictionsError(f"{where}: field '{field}': {first['msg']}") from None


def _parquet_rows(fs: Any, path: str) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq

    with fs.open(path, "rb") as f:
        rows: list[dict[str, Any]] = pq.read_table(f).to_pylist()
    return rows


register_backend(ReplayGeneration, ReplayBackend.from_config)
