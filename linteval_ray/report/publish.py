"""Everything a run folder shows a person: report.md/html with its plots, and the browsable
site in ``OUTPUT/report/`` (``site``), written by ``run``, ``reduce`` and ``report`` alike."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

from linteval_ray.config import DatasetConfig
from linteval_ray.load.loader import load_split
from linteval_ray.reduce.metrics import RunMetrics
from linteval_ray.report.render import write_report
from linteval_ray.report.site import write_site
from linteval_ray.schema import LintEvalRecord, ResultRow
from linteval_ray.store.folder import RunFolder
from linteval_ray.store.manifest import read_manifest

log = logging.getLogger(__name__)


def publish(folder: RunFolder, rows: Sequence[ResultRow], metrics: RunMetrics,
            records: Mapping[str, LintEvalRecord] | None = None, title: str | None = None) -> str:
    """Write the report and the site; returns the site's index URL. Without ``records`` the
    originals are read back from the run's dataset (as the manifest names it)."""
    write_report(folder, rows, metrics)
    if records is None:
        records = records_of_run(folder, rows)
    return write_site(folder, rows, metrics, records=records, title=title)


def records_of_run(folder: RunFolder, rows: Sequence[ResultRow]) -> dict[str, LintEvalRecord]:
    """The dataset records of a finished run's samples; empty (pages without originals) when the
    dataset cannot be read any more."""
    manifest = read_manifest(folder)
    if manifest is None:
        return {}
    wanted = sorted({r.sample_id for r in rows if not r.sample_id.startswith("#")})
    try:
        dataset = DatasetConfig(source=manifest.dataset_url, sample_ids=wanted)
        loaded = load_split(manifest.dataset_url, dataset, folder.store.storage)
    except Exception as exc:  # noqa: BLE001 - the report must still be written without the originals
        log.warning("originals not shown in the report: cannot read %s (%s)", manifest.dataset_url, exc)
        return {}
    return {r.sample_id: r for r in loaded.records}
