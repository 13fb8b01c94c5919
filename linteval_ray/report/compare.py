"""``linteval-ray compare OUT...``: runs side by side (a table of their metrics) and
``compare.html`` (the first run against each other one: paired metric deltas with intervals, the
samples that flipped, the alerts one run fixed and the other did not).
"""

from __future__ import annotations

import json
import os
import posixpath
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import NamedTuple
from urllib.parse import quote, urlsplit

from linteval_ray.config import DEFAULT_RANK_BY, RankBy
from linteval_ray.reduce.intervals import RESAMPLES
from linteval_ray.reduce.metrics import RunMetrics
from linteval_ray.reduce.paired import PairedDelta, paired_deltas, scored_rows, shared_samples
from linteval_ray.reduce.ranking import RANK_METRICS, pass_x_reduction, ranked_by
from linteval_ray.report.html import escape, write_page
from linteval_ray.report.sample_view import outcome_of
from linteval_ray.report.tables import GROUP_HEADERS, Table, group_row, num, pct, to_html
from linteval_ray.schema import ResultRow
from linteval_ray.store.folder import RunFolder, compare_page
from linteval_ray.store.fs import ObjectStore
from linteval_ray.store.manifest import read_manifest


def load_metrics(folder: RunFolder) -> RunMetrics:
    return RunMetrics.model_validate(json.loads(folder.store.read_bytes(folder.metrics)))


def compare_table(folders: list[RunFolder], group: str, rank_by: RankBy = DEFAULT_RANK_BY) -> Table:
    """One row per run for ``group`` (``overall`` or a language), best ``rank_by`` first (reduce/ranking.py)."""
    runs = []
    for folder in folders:
        metrics = load_metrics(folder)
        manifest = read_manifest(folder)
        name = f"{manifest.run_name} ({manifest.model})" if manifest else folder.url
        stats = metrics.overall if group == "overall" else metrics.by_language.get(group)
        if stats is not None:
            runs.append((name, stats))
    rows = [[*group_row(name, stats), pct(pass_x_reduction(stats)), pct(stats.unchanged)]
            for name, stats in ranked_by(runs, lambda run: run[1], rank_by)]
    return Table(title=f"Runs compared ({group}), best {RANK_METRICS[rank_by][0]} first",
                 headers=["run", *GROUP_HEADERS[1:], "Pass@1×Reduction@P", "Unchanged"], rows=rows)


class CompareRun(NamedTuple):
    """One run to compare: a display name, its rows, and (to link sample pages) its site folder."""

    name: str
    rows: Sequence[ResultRow]
    site: str | None = None  # the run's OUTPUT/report folder, as write_site wrote it


def write_compare_site(
    runs: Sequence[CompareRun | tuple[str, Sequence[ResultRow]] | tuple[str, Sequence[ResultRow], str | None]],
    target: str,
    store: ObjectStore | None = None,
) -> str:
    """Write ``<target>/compare.html`` (the first run against each other one) and return its URL."""
    compared = [CompareRun(*run) for run in runs]
    if len(compared) < 2:
        raise ValueError("compare needs at least two runs")
    target, store = target.rstrip("/"), store or ObjectStore()
    sections = [compare_section(compared[0], other, target) for other in compared[1:]]
    title = "LintEval runs compared: " + " vs ".join(run.name for run in compared)
    body = f"<h1>{escape(title)}</h1>" + "".join(sections)
    return write_page(compare_page(target), title, body, store)


def delta_rows(deltas: Sequence[PairedDelta]) -> list[list[str]]:
    """Per metric: value in A, in B, B − A, its paired bootstrap 95 % interval, and what it says."""
    rows = []
    for d in deltas:
        show = pct if d.metric.percent else num
        rows.append([d.metric.label, show(d.a), show(d.b), signed(d.delta, d.metric.percent),
                     ci_text(d.ci, d.metric.percent), d.reading])
    return rows


def ci_text(ci: list[float] | None, percent: bool) -> str:
    return "-" if ci is None else f"{signed(ci[0], percent)} … {signed(ci[1], percent)}"


def signed(value: float | None, percent: bool) -> str:
    if value is None:
        return "-"
    return f"{100 * value:+.1f} pp" if percent else f"{value:+.2f}"


def fixed_identities(row: ResultRow) -> Counter[str]:
    """Original alerts a passing revision removed (a failing revision fixes nothing, as in the metrics)."""
    if not row.pass_at_1:
        return Counter()
    before = Counter(m.message_identity for m in row.original_messages)
    return before - Counter(m.message_identity for m in row.revised_messages)


def fixes_by_check(a: Mapping[str, ResultRow], b: Mapping[str, ResultRow], shared: Sequence[str]) -> list[list[str]]:
    """Per check: alerts fixed by A only, by B only, by both, over the shared rows."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    check_of = {m.message_identity: m.check_name for row_id in shared for m in a[row_id].original_messages}
    check_of |= {m.message_identity: m.check_name for row_id in shared for m in b[row_id].original_messages}
    for row_id in shared:
        fixed_a, fixed_b = fixed_identities(a[row_id]), fixed_identities(b[row_id])
        for column, fixed in enumerate((fixed_a - fixed_b, fixed_b - fixed_a, fixed_a & fixed_b)):
            for identity, count in fixed.items():
                counts[check_of[identity]][column] += count
    ordered = sorted(counts.items(), key=lambda item: (-abs(item[1][0] - item[1][1]), item[0]))
    return [[check, str(only_a), str(only_b), str(both)] for check, (only_a, only_b, both) in ordered
            if only_a or only_b]


def compare_section(a: CompareRun, b: CompareRun, target: str) -> str:
    rows_a, rows_b = scored_rows(a.rows), scored_rows(b.rows)
    paired = shared_samples(rows_a, rows_b)
    shared = paired.rows
    html_parts = [
        f"<h2>A = {escape(a.name)}, B = {escape(b.name)}</h2>",
        f"<p>Compared on the {len(paired.a)} samples ({len(shared)} rows) scored in both runs (rows scored in one "
        f"run only: A {len(rows_a) - len(shared)}, B {len(rows_b) - len(shared)}). Intervals: paired bootstrap "
        f"over those samples ({RESAMPLES} resamples); \"no clear difference\" when the interval holds 0.</p>",
        to_html(Table(title="Metric deltas (B − A)", headers=["metric", "A", "B", "B − A", "95% CI", "reading"],
                      rows=delta_rows(paired_deltas(paired.a, paired.b)))),
    ]
    links = (site_link(target, a.site), site_link(target, b.site))
    for title, passed_in, failed_in in (("Passed in A, failed in B", rows_a, rows_b),
                                        ("Failed in A, passed in B", rows_b, rows_a)):
        flipped = [r for r in shared if passed_in[r].pass_at_1 and not failed_in[r].pass_at_1]
        html_parts.append(flips_html(title, flipped, rows_a, rows_b, links))
    checks = fixes_by_check(rows_a, rows_b, shared)
    html_parts.append(to_html(Table(title="Alerts fixed by one run but not the other, by check (passing revisions)",
                                    headers=["check", "fixed by A only", "fixed by B only", "fixed by both"],
                                    rows=checks or [["(none)", "0", "0", "0"]])))
    return "<section class='comparison'>" + "".join(html_parts) + "</section>"


def flips_html(title: str, flipped: Sequence[str], rows_a: Mapping[str, ResultRow],
               rows_b: Mapping[str, ResultRow], links: tuple[str | None, str | None]) -> str:
    def cell(row: ResultRow, site: str | None) -> str:
        outcome = escape(outcome_of(row))
        if site is None:
            return f"<td>{outcome}</td>"
        return f"<td><a href='{escape(site)}/sample.html#{quote(row.row_id, safe='')}'>{outcome}</a></td>"

    body = "".join(
        f"<tr class='flip' data-row-id='{escape(r)}'><td>{escape(r)}</td><td>{escape(rows_a[r].language or '-')}</td>"
        f"<td>{escape(rows_a[r].problem_id or '-')}</td>{cell(rows_a[r], links[0])}{cell(rows_b[r], links[1])}</tr>"
        for r in flipped
    ) or "<tr><td colspan='5'>none</td></tr>"
    return (f"<h3>{escape(title)} ({len(flipped)})</h3><table class='flips'><thead><tr><th>row</th><th>language</th>"
            f"<th>problem</th><th>A</th><th>B</th></tr></thead><tbody>{body}</tbody></table>")


def site_link(target: str, site: str | None) -> str | None:
    """``site`` relative to ``target`` when both are local or on the same host (links then survive
    a copy or ``aws s3 sync`` of the whole tree), else ``site`` itself."""
    if site is None:
        return None
    site = site.rstrip("/")
    here, there = urlsplit(target), urlsplit(site)
    if here.scheme in ("", "file") and there.scheme in ("", "file"):
        return os.path.relpath(os.path.abspath(there.path), os.path.abspath(here.path)).replace(os.sep, "/")
    if (here.scheme, here.netloc) == (there.scheme, there.netloc):
        return posixpath.relpath(there.path, here.path or "/")
    return site
