"""``OUTPUT/report/``: a static results browser (an index page and one page for every sample).

The site is plain files with relative links, so it opens from a local folder (``file://``), after
``aws s3 sync`` or on any static host, with no server and no network at view time.

Data travels as JavaScript files loaded by ``<script src>``, not JSON fetched by the page: Chromium
refuses fetch()/XHR of local files under ``file://``. ``data/index.js`` holds one summary line per
row (what the sample table needs); the full rows (programs, diff, alerts, raw response) are split
into ``data/rows-<k>.js`` by a hash of the sample id (``chunks.py``), which ``assets/site.js`` computes
the same way, so a sample page loads one chunk of ~``ROWS_PER_CHUNK`` rows whatever the run's size.
What a row shows is ``sample_view.py``; the page shell and escaping, ``html.py``.

Program text and model output are hostile: the data files are JSON with every non-ASCII character
and ``<`` escaped (inert even if pasted into a ``<script>``), the pages insert text only through
``textContent``, Python-rendered HTML goes through ``html.escape``, and a Content-Security-Policy
forbids inline scripts and handlers, so an injection that got past the escaping could not run.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from urllib.parse import quote

from linteval_ray.reduce.metrics import RunMetrics
from linteval_ray.report.chunks import (
    IndexLines,
    chunk_count,
    chunk_of,
    chunk_ranges,
    chunks_of,
    js_assignment,
    range_of_rows,
    rows_by_chunk,
    safe_json,
)
from linteval_ray.report.html import escape, page, write_assets
from linteval_ray.report.originals import ORIGINAL_SCHEMA, Original, read_originals, spill_originals
from linteval_ray.report.plots import plots
from linteval_ray.report.sample_view import SITE_COLUMNS, Row
from linteval_ray.report.tables import pct, to_html
from linteval_ray.schema import LintEvalRecord, ResultRow
from linteval_ray.schema.arrow import result_schema
from linteval_ray.schema.table import ResultTable
from linteval_ray.schema.task import LINTEVAL_TASK
from linteval_ray.store.folder import RunFolder
from linteval_ray.store.fs import ObjectStore
from linteval_ray.store.spill import Buckets
from linteval_ray.tasks.base import SiteView
from linteval_ray.tasks.registry import task


def write_site(
    folder: RunFolder,
    rows: ResultTable | Sequence[ResultRow],
    metrics: RunMetrics,
    *,
    records: Mapping[str, LintEvalRecord] | Iterable[Original] | None = None,
    title: str | None = None,
    view: SiteView | None = None,
) -> str:
    """Write ``OUTPUT/report/`` for one run and return the URL of its ``index.html``.

    ``records`` are the dataset records of the samples (by sample_id, or as a stream of their
    ``Original`` parts), the only place the original program (and the prompt's inputs) live;
    without them sample pages show the revision and alerts alone. Rows and originals are in
    memory one range of chunks at a time (a run's rows never sit in memory together). ``view``: what
    the pages show of the run's task (default: the metrics' task's)."""
    results = rows if isinstance(rows, ResultTable) else ResultTable.of_rows(rows)
    spec = task(metrics.task)
    view = view or spec.site_view()
    originals = (Original.of_record(r) for r in records.values()) if isinstance(records, Mapping) else records or ()
    site, store = folder.site, folder.store
    title = title or f"{spec.display_name} results: {folder.name}"
    chunks = chunk_count(len(results))
    write_assets(site, store)
    for name, png in plots(metrics).items():
        store.write_atomic(f"{site}/plots/{name}", png)
    summaries = _write_chunks(site, store, results, originals, chunks, view)
    layout = "".join(f'"{name}":{safe_json(value)},' for name, value in (("columns", view.columns),
                                                                        ("filters", view.filters)) if value)
    head = f'window.LINTEVAL_INDEX = {{{layout}"fields":{safe_json(list(view.summary_fields))},"rows":['.encode()
    index_js = summaries.joined(head, b"]};\n")
    del summaries
    store.write_atomic(f"{site}/data/index.js", bytes(index_js))
    store.write_atomic(f"{site}/index.html", index_page(title, results, metrics).encode())
    store.write_atomic(f"{site}/sample.html", sample_page(title, chunks).encode())
    return f"{site}/index.html"


def _write_chunks(site: str, store: ObjectStore, results: ResultTable, originals: Iterable[Original],
                  chunks: int, view: SiteView) -> IndexLines:
    """Every ``data/rows-<k>.js``, one range of chunks at a time; returns each row's line of the
    index."""
    summaries = IndexLines(len(results))
    members = rows_by_chunk(chunks_of(results.arrow("sample_id"), chunks), chunks)
    ranges = chunk_ranges(members)
    range_of_chunk = [number for number, (first, last) in enumerate(ranges) for _ in range(first, last)]
    with Buckets("linteval-site-", result_schema()) as spilled, \
            Buckets("linteval-originals-", ORIGINAL_SCHEMA) as shown:
        # one pass over the split and one over the table's row groups route each original and
        # each row to its range's file
        complete = spill_originals(originals, lambda sample_id: range_of_chunk[chunk_of(sample_id, chunks)], shown)
        results.spill(range_of_rows(members, ranges, len(results)), spilled)
        for number, (first, last) in enumerate(ranges):
            taken: list[Row] = spilled.read(number).select(list(SITE_COLUMNS)).to_pylist()  # in the table's order
            in_range = sorted(i for k in range(first, last) for i in members[k])
            position = {index: p for p, index in enumerate(in_range)}  # row index -> row of `taken`
            records = read_originals(shown, number) if complete else {}
            lines: dict[int, str] = {}
            for k in range(first, last):
                chunk_rows = [taken[position[i]] for i in members[k]]
                for index, row in zip(members[k], chunk_rows, strict=True):
                    lines[index] = safe_json(view.summary_of(row, records.get(row["sample_id"])))
                target = f"(window.LINTEVAL_CHUNKS = window.LINTEVAL_CHUNKS || {{}})[{k}]"
                part = view.chunk_of_rows(chunk_rows, records)
                store.write_atomic(f"{site}/data/rows-{k}.js", js_assignment(target, part))
            summaries.add(lines)
    return summaries


def index_page(title: str, results: ResultTable, metrics: RunMetrics) -> str:
    summary = f"{len(results)} rows: {metrics.headline()}"
    parts = [f"<h1>{escape(title)}</h1><p>{escape(summary)} <a href='#browser'>Browse the samples</a>.</p>"]
    parts += [f"<p class='warning'><strong>Warning:</strong> {escape(w)}</p>" for w in metrics.warnings()]
    parts += [to_html(table) for table in task(metrics.task).report_tables(metrics)]
    parts.append(failures_html(results))
    parts.append("<h3>Plots</h3><div class='plots'>"
                 + "".join(f"<img src='plots/{escape(n)}' alt='{escape(n)}'>" for n in plots_names(metrics)) + "</div>")
    parts.append("<h2 id='browser'>Samples</h2><div id='sample-browser'>"
                 "<p class='loading'>Loading the sample table (needs JavaScript)…</p></div>")
    return page(title, "".join(parts), scripts=["data/index.js", "assets/site.js", "assets/index.js"])


def plots_names(metrics: RunMetrics) -> list[str]:
    alerts = ["reduction_by_language.png", "reduction_by_category.png"] if metrics.task == LINTEVAL_TASK else []
    return ["pass_rate_by_language.png", *alerts] + (["verdicts.png"] if metrics.verdicts else [])


def failures_html(results: ResultTable) -> str:
    """Rows that did not pass, by verdict (or status), each count linking to the filtered table."""
    counts = Counter(verdict if verdict is not None else status for verdict, status, passed in
                     zip(results.column("verdict"), results.column("status"), results.column("pass_at_1"),
                         strict=True) if not passed)  # outcome_of, from the columns
    body = "".join(
        f"<tr><td><a href='#verdict={quote(name, safe='')}'>{escape(name)}</a></td><td>{count}</td>"
        f"<td>{escape(pct(count / len(results)))}</td></tr>"
        for name, count in counts.most_common()
    ) or "<tr><td colspan='3'>every row passed</td></tr>"
    return ("<h3>Failures by verdict</h3><table id='failures'><thead><tr><th>verdict / status</th>"
            f"<th>rows</th><th>share of rows</th></tr></thead><tbody>{body}</tbody></table>")


def sample_page(title: str, chunks: int) -> str:
    """One static page for every row: sample.js reads ``#<row_id>`` and loads that row's chunk."""
    body = (f"<p class='nav'><a href='index.html'>← {escape(title)}</a></p>"
            "<div id='sample'><p class='loading'>Loading the sample (needs JavaScript)…</p></div>")
    return page(f"Sample · {title}", body, scripts=["assets/site.js", "assets/sample.js"],
                body_attrs=f" data-chunks='{chunks}'")
