"""``SetFolder``: the names of a set's files, and ``set.json``, what the set holds.

A set folder (local path or object-store URL) holds::

    set.json                   the models evaluated so far, in the set's order (read by a rerun,
                               ``compare`` and the leaderboard), and the trackers' run ids
    models/<name>/             one ordinary run folder per model (``RunFolder``)
    leaderboard.json|md|html   every model against the baseline (sets/leaderboard.py)
    plots/learning_curve.png   Pass@1 and Reduction@P against the training step
    assets/site.css            the leaderboard page's style (the report's)
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from linteval_ray.store.folder import RunFolder, StoreFolder
from linteval_ray.store.fs import ObjectStore

SET_RECORD = "set.json"
MODELS_DIR = "models"
LEADERBOARD_JSON = "leaderboard.json"
LEADERBOARD_MD = "leaderboard.md"
LEADERBOARD_HTML = "leaderboard.html"
CURVE_PNG = "plots/learning_curve.png"


class SetEntry(BaseModel):
    """One model of the set as ``set.json`` records it."""

    name: str
    step: int | None = None
    checkpoint: str | None = None
    tracked: dict[str, str] = Field(default_factory=dict, description="tracker -> its run id for this model")


class SetRecord(BaseModel):
    """``set.json``: every model the set evaluated (kept when a checkpoint is later deleted by the
    training run), in the set's order."""

    run_name: str
    models: list[SetEntry] = Field(default_factory=list)
    tracked: dict[str, str] = Field(default_factory=dict, description="tracker -> its leaderboard run id")

    def entry(self, name: str) -> SetEntry | None:
        return next((e for e in self.models if e.name == name), None)


class SetFolder(StoreFolder):
    """One set's folder."""

    def model(self, name: str) -> RunFolder:
        """The run folder of model ``name``."""
        return RunFolder(url=self.path(MODELS_DIR, name), store=self.store)

    @property
    def record_url(self) -> str:
        return self.path(SET_RECORD)

    def read_record(self) -> SetRecord | None:
        data = self.store.read_if_exists(self.record_url)
        return None if data is None else SetRecord.model_validate_json(data)

    def write_record(self, record: SetRecord) -> None:
        self.store.write_atomic(self.record_url, record.model_dump_json(indent=2).encode())


def open_set(url: str, store: ObjectStore) -> SetFolder | None:
    """The set at ``url`` (None when ``url`` is a single run's folder, or nothing)."""
    folder = SetFolder(url=url.rstrip("/"), store=store)
    return folder if store.exists(folder.record_url) else None


def run_folders(url: str, store: ObjectStore) -> list[RunFolder]:
    """The run folders at ``url``: a set's models in the set's order, else the one run there."""
    folder = open_set(url, store)
    if folder is None:
        return [RunFolder(url=url.rstrip("/"), store=store)]
    record = folder.read_record()
    names = [e.name for e in record.models] if record else []
    return [folder.model(name) for name in names if store.exists(folder.model(name).metrics)]
