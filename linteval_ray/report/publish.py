"""Everything a run folder shows a person: report.md/html with its plots, and the browsable
site in ``OUTPUT/report/`` (``site``), written by ``run``, ``reduce`` and ``report`` alike."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from linteval_ray.reduce.metrics import RunMetrics
from linteval_ray.report.originals import Original, originals_of_run
from linteval_ray.report.render import write_report
from linteval_ray.report.sample_view import shows_prompts
from linteval_ray.report.site import write_site
from linteval_ray.schema import LintEvalRecord
from linteval_ray.schema.table import ResultTable
from linteval_ray.store.folder import RunFolder
from linteval_ray.tasks.registry import task


def publish(folder: RunFolder, results: ResultTable, metrics: RunMetrics,
            records: Mapping[str, LintEvalRecord] | None = None, title: str | None = None) -> str:
    """Write the report and the site; returns the site's index URL. Without ``records`` the
    originals (what the pages show of each sample's record) are read back from the run's dataset
    (as the manifest names it), by the run's task."""
    write_report(folder, results, metrics)
    view = task(metrics.task).site_view()
    originals = records if records is not None else view.records_of_run(folder, results)
    return write_site(folder, results, metrics, records=originals, title=title, view=view)


def linteval_originals(folder: RunFolder, results: ResultTable) -> Iterator[Original]:
    """LintEval's originals of a run (their alerts when a page shows its prompt)."""
    return originals_of_run(folder, results, with_alerts=shows_prompts(results.column("prompt_version")))
