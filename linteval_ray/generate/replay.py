"""Replay: revisions from a predictions file or from the dataset's own columns.

Lets a run be reproduced (or a model scored offline) without any model: the
bundled data set carries a reference revision per sample, and a predictions
file carries ``sample_id`` (+ optional ``draw``) with ``raw_response`` and/or
``revised_code``. A row with no prediction gets a ``generation_error``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from linteval_ray.generate.base import GenerationStage, with_generation_columns
from linteval_ray.schema import LintEvalRecord
from linteval_ray.schema.record import to_unicode

if TYPE_CHECKING:
    import pyarrow as pa
    import ray.data

    from linteval_ray.config import StorageConfig

REFERENCE_MODEL = "reference-revision"


class Prediction(BaseModel):
    """One row of a predictions file."""

    model_config = ConfigDict(extra="ignore")

    sample_id: str
    draw: int = 0
    raw_response: str | None = None
    revised_code: str | None = None
    tokens_used: int | None = None
    model: str | None = None

    @field_validator("raw_response", "revised_code", mode="before")
    @classmethod
    def _valid_text(cls, value: object) -> object:
        # Model output is untrusted: undecodable bytes become U+FFFD rather than failing the file.
        return to_unicode(value) if isinstance(value, str) else value


class ReplayStage(GenerationStage):
    """Attach recorded responses to prompt rows (no model involved)."""

    name = "replay"

    def __init__(self, predictions: list[Prediction] | None = None, model: str | None = None):
        self._predictions = (
            None if predictions is None else {(p.sample_id, p.draw): p for p in predictions}
        )
        self._model = model or (REFERENCE_MODEL if predictions is None else "predictions")

    def model_name(self) -> str:
        return self._model

    def apply(self, ds: "ray.data.Dataset") -> "ray.data.Dataset":
        lookup, model = self._predictions, self._model
        return ds.map_batches(
            # batch_size=None keeps the input's blocks: merging them would starve the validation pool.
            lambda batch: _replay_batch(batch, lookup, model), batch_format="pyarrow", batch_size=None,
            num_cpus=0.1,
        )

    def replay_table(self, table: "pa.Table") -> "pa.Table":
        """The same, on one Arrow table in this process (``linteval-ray validate``)."""
        return _replay_batch(table, self._predictions, self._model)


def _replay_batch(batch: "pa.Table", lookup: dict | None, model: str) -> "pa.Table":
    values = [_replay_row(row, lookup, model) for row in batch.to_pylist()]
    return with_generation_columns(batch, values)


def _replay_row(row: dict[str, Any], lookup: dict | None, model: str) -> dict[str, Any]:
    if lookup is None:
        record = LintEvalRecord.model_validate_json(row["record_json"])
        prediction = Prediction(
            sample_id=record.sample_id,
            raw_response=record.raw_response or None,
            # The dataset's revised_code is what ITS extraction produced; re-extract from the
            # response when there is one so replay exercises our extraction too.
            revised_code=None if record.raw_response else (record.revised_code or None),
            tokens_used=record.tokens_used,
        )
    else:
        prediction = lookup.get((row["sample_id"], row["draw"]))
    if prediction is None:
        return {
            "raw_response": None, "revised_code": None, "tokens_used": None, "model": model,
            "generation_error": f"no prediction for sample {row['sample_id']} draw {row['draw']}",
        }
    return {
        "raw_response": prediction.raw_response,
        "revised_code": prediction.revised_code,
        "tokens_used": prediction.tokens_used,
        "generation_error": None
        if prediction.raw_response is not None or prediction.revised_code is not None
        else "prediction has neither raw_response nor revised_code",
        "model": prediction.model or model,
    }


def load_predictions(url: str, storage: "StorageConfig | None" = None) -> list[Prediction]:
    """Read a predictions JSONL or Parquet file; a malformed line names its line number."""
    import json

    import pyarrow.parquet as pq

    from linteval_ray.store.fs import filesystem

    fs, path = filesystem(url, storage)
    if path.endswith(".parquet"):
        with fs.open(path, "rb") as f:
            return [Prediction.model_validate(r) for r in pq.read_table(f).to_pylist()]
    predictions = []
    with fs.open(path, "rt", compression="infer") as f:
        for number, line in enumerate(f, start=1):
            if line.strip():
                try:
                    predictions.append(Prediction.model_validate(json.loads(line)))
                except ValidationError as exc:
                    first = exc.errors(include_url=False)[0]
                    field = ".".join(str(part) for part in first["loc"])
                    raise ValueError(f"{url}: line {number}: field '{field}': {first['msg']}") from None
                except ValueError as exc:
                    raise ValueError(f"{url}: line {number}: invalid JSON: {exc}") from None
    return predictions
