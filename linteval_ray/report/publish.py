"""Everything a run folder shows a person: report.md/html with its plots, and the browsable
site in ``OUTPUT/report/`` (``site``), written by ``run``, ``reduce`` and ``report`` alike."""

from __future__ import annotations

from collections.abc import Mapping

from linteval_ray.reduce.metrics import RunMetrics
from linteval_ray.report.originals import originals_of_run
from linteval_ray.report.render import write_report
from linteval_ray.report.sample_view import shows_prompts
from linteval_ray.report.site import write_site
from linteval_ray.schema import LintEvalRecord
from linteval_ray.schema.table import ResultTable
from linteval_ray.store.folder import RunFolder


def publish(folder: RunFolder, results: ResultTable, metrics: RunMetrics,
            records: Mapping[str, LintEvalRecord] | None = None, title: str | None = None) -> str:
    """Write the report and the site; returns the site's index URL. Without ``records`` the
    originals are read back from the run's dataset (as the manifest names it)."""
    write_report(folder, results, metrics)
    originals = records if records is not None else originals_of_run(
        folder, results, with_alerts=shows_prompts(results.column("prompt_version")))
    return write_site(folder, results, metrics, records=originals, title=title)
