"""report.md and report.html (same content), with the plots beside them."""

from __future__ import annotations

import html

from linteval_ray.reduce.metrics import RunMetrics
from linteval_ray.report.plots import plots
from linteval_ray.report.tables import slowest_table, to_html, to_markdown
from linteval_ray.schema.table import ResultTable
from linteval_ray.store.folder import PLOTS_DIR, RunFolder
from linteval_ray.tasks.registry import task

STYLE = ("body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}"
         "table{border-collapse:collapse;margin:.5rem 0 1.5rem}td,th{border:1px solid #ccc;padding:.25rem .6rem;"
         "text-align:right}td:first-child,th:first-child{text-align:left}img{max-width:100%}"
         ".warning{background:#fff4e5;border-left:4px solid #f59e0b;padding:.5rem .8rem}")


def write_report(folder: RunFolder, results: ResultTable, metrics: RunMetrics) -> None:
    spec = task(metrics.task)
    tables = [*spec.report_tables(metrics), slowest_table(results)]
    images = plots(metrics)
    for name, png in images.items():
        folder.store.write_atomic(f"{folder.plots}/{name}", png)
    title = f"{spec.display_name} results: {folder.name}"
    summary = metrics.headline()
    warnings = metrics.warnings()
    markdown = "\n\n".join(
        [f"# {title}", summary, *(f"> **Warning:** {w}" for w in warnings), *(to_markdown(t) for t in tables),
         "## Plots", *(f"![{n}]({PLOTS_DIR}/{n})" for n in images)]
    ) + "\n"
    page = "".join(
        [f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
         f"<style>{STYLE}</style></head><body><h1>{html.escape(title)}</h1><p>{html.escape(summary)}</p>",
         *(f"<p class='warning'><strong>Warning:</strong> {html.escape(w)}</p>" for w in warnings),
         *(to_html(t) for t in tables), "<h2>Plots</h2>",
         *(f"<p><img src='{PLOTS_DIR}/{n}' alt='{n}'></p>" for n in images), "</body></html>\n"]
    )
    folder.store.write_atomic(folder.report_md, markdown.encode())
    folder.store.write_atomic(folder.report_html, page.encode())
