"""``linteval-ray compare OUT...``: a side-by-side table of runs (a leaderboard)."""

from __future__ import annotations

import json

from linteval_ray.reduce.metrics import RunMetrics
from linteval_ray.report.tables import GROUP_HEADERS, Table, group_row
from linteval_ray.store.folder import RunFolder
from linteval_ray.store.manifest import read_manifest


def load_metrics(folder: RunFolder) -> RunMetrics:
    return RunMetrics.model_validate(json.loads(folder.store.read_bytes(folder.metrics)))


def compare_table(folders: list[RunFolder], group: str) -> Table:
    """One row per run for ``group`` (``overall`` or a language), best Pass@1 first."""
    rows = []
    for folder in folders:
        metrics = load_metrics(folder)
        manifest = read_manifest(folder)
        name = f"{manifest.run_name} ({manifest.model})" if manifest else folder.url
        stats = metrics.overall if group == "overall" else metrics.by_language.get(group)
        if stats is not None:
            rows.append((stats.pass_at_1 or 0.0, group_row(name, stats)))
    rows.sort(key=lambda r: -r[0])
    return Table(title=f"Runs compared ({group})", headers=["run", *GROUP_HEADERS[1:]], rows=[r for _, r in rows])
