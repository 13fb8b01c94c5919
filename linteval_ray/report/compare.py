"""``linteval-ray compare OUT...``: a side-by-side table of runs (a leaderboard)."""

from __future__ import annotations

import json

from linteval_ray.config import StorageConfig
from linteval_ray.reduce.metrics import RunMetrics
from linteval_ray.reduce.reduce import METRICS_FILE
from linteval_ray.report.tables import GROUP_HEADERS, Table, group_row
from linteval_ray.store.fs import filesystem
from linteval_ray.store.manifest import read_manifest


def load_metrics(output: str, storage: StorageConfig | None) -> RunMetrics:
    fs, root = filesystem(output, storage)
    return RunMetrics.model_validate(json.loads(fs.cat_file(f"{root.rstrip('/')}/{METRICS_FILE}")))


def compare_table(outputs: list[str], group: str, storage: StorageConfig | None) -> Table:
    """One row per run for ``group`` (``overall`` or a language), best Pass@1 first."""
    rows = []
    for output in outputs:
        metrics = load_metrics(output, storage)
        manifest = read_manifest(output, storage)
        name = f"{manifest.run_name} ({manifest.model})" if manifest else output
        stats = metrics.overall if group == "overall" else metrics.by_language.get(group)
        if stats is not None:
            rows.append((stats.pass_at_1 or 0.0, group_row(name, stats)))
    rows.sort(key=lambda r: -r[0])
    return Table(title=f"Runs compared ({group})", headers=["run", *GROUP_HEADERS[1:]], rows=[r for _, r in rows])
