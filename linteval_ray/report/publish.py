"""Everything a run folder shows a person: report.md/html with its plots, and the browsable
site in ``OUTPUT/report/`` (``site``), written by ``run``, ``reduce`` and ``report`` alike."""

from __future__ import annotations

import logging
import pickle
import sqlite3
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from contextlib import closing, contextmanager
from pathlib import Path

from linteval_ray.config import DatasetConfig
from linteval_ray.load.loader import checked_rows
from linteval_ray.load.presets import resolve_source
from linteval_ray.load.readers import iter_rows
from linteval_ray.reduce.metrics import RunMetrics
from linteval_ray.report.render import write_report
from linteval_ray.report.site import write_site
from linteval_ray.schema import LintEvalRecord
from linteval_ray.schema.table import ResultTable
from linteval_ray.store.folder import RunFolder
from linteval_ray.store.manifest import read_manifest

log = logging.getLogger(__name__)


def publish(folder: RunFolder, results: ResultTable, metrics: RunMetrics,
            records: Mapping[str, LintEvalRecord] | None = None, title: str | None = None) -> str:
    """Write the report and the site; returns the site's index URL. Without ``records`` the
    originals are read back from the run's dataset (as the manifest names it)."""
    write_report(folder, results, metrics)
    if records is not None:
        return write_site(folder, results, metrics, records=records, title=title)
    with records_of_run(folder, results) as originals:
        return write_site(folder, results, metrics, records=originals, title=title)


@contextmanager
def records_of_run(folder: RunFolder, results: ResultTable) -> Iterator[Mapping[str, LintEvalRecord]]:
    """The dataset records of a finished run's samples, spilled to a temporary file as the split
    streams by (the site reads each back for its chunk); empty (pages without originals) when the
    dataset cannot be read any more."""
    manifest = read_manifest(folder)
    if manifest is None:
        yield {}
        return
    wanted = sorted({s for s in results.column("sample_id") if not s.startswith("#")})
    with tempfile.TemporaryDirectory(prefix="linteval-originals-") as tmp, \
            closing(SpilledRecords(Path(tmp, "records.sqlite"))) as spilled:
        try:
            url = resolve_source(manifest.dataset_url)
            dataset = DatasetConfig(source=url, sample_ids=wanted)
            with closing(iter_rows(url, folder.store.storage)) as rows:
                spilled.add(r for r in checked_rows(rows, dataset) if isinstance(r, LintEvalRecord))
        except Exception as exc:  # noqa: BLE001 - the report must still be written without the originals
            log.warning("originals not shown in the report: cannot read %s (%s)", manifest.dataset_url, exc)
            spilled.clear()
        yield spilled


class SpilledRecords(Mapping[str, LintEvalRecord]):
    """Records by sample_id in an SQLite file (pickled: the models exactly as loaded, lone
    surrogates included), each read back when asked for: the originals of a 100k-row run never
    sit in memory together."""

    def __init__(self, path: Path) -> None:
        self._db = sqlite3.connect(path)
        self._db.execute("CREATE TABLE records (sample_id TEXT PRIMARY KEY, body BLOB NOT NULL)")

    def add(self, records: Iterable[LintEvalRecord]) -> None:
        """Keep the first record of each sample id (as ``load_split`` does)."""
        with self._db:
            self._db.executemany("INSERT OR IGNORE INTO records VALUES (?, ?)",
                                 ((r.sample_id, pickle.dumps(r, protocol=5)) for r in records))

    def clear(self) -> None:
        with self._db:
            self._db.execute("DELETE FROM records")

    def close(self) -> None:
        self._db.close()

    def __getitem__(self, sample_id: str) -> LintEvalRecord:
        found = self._db.execute("SELECT body FROM records WHERE sample_id = ?", (sample_id,)).fetchone()
        if found is None:
            raise KeyError(sample_id)
        record: LintEvalRecord = pickle.loads(found[0])  # our own file, written just above
        return record

    def __iter__(self) -> Iterator[str]:
        return (sample_id for (sample_id,) in self._db.execute("SELECT sample_id FROM records"))

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM records").fetchone()[0])
