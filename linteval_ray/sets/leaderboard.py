"""One leaderboard for a set: every model against the baseline, with honest intervals.

``leaderboard.json``::

    {"baseline": NAME, "rank_by": METRIC,
     "models": [{"name", "output", "model", "step",
                 "overall": <that model's metrics.json "overall">,
                 "by_language": <its "by_language">,
                 "paired_samples": samples scored by both it and the baseline,
                 "delta": {"pass_at_1" | "reduction_at_p" | "new_at_p" | "delta_line_at_p":
                           {"value": model − baseline, "ci": [low, high]}}  (null for the baseline)}]}

in the set's order (explicit models, then checkpoints by step). The deltas are ``compare``'s:
over the rows both runs scored, a paired bootstrap over samples (reduce/paired.py
``shared_samples``, ``paired_deltas``). ``leaderboard.md`` and ``leaderboard.html`` (the report's
style, each model linking to its results browser, ``models/<name>/report/index.html``) rank by
``rank_by`` (``--rank-by``, reduce/ranking.py; default Pass@1 × Reduction@P, which returning the
programs unchanged cannot win) and show each model's share of revisions identical to the original
(``unchanged``). When models know their training step, ``plots/learning_curve.png`` draws Pass@1 and
Reduction@P with their 95 % intervals against it (models without a step as horizontal lines).
"""

from __future__ import annotations

import html
import io
import json
from collections.abc import Sequence

import pyarrow.parquet as pq
from pydantic import BaseModel, Field

from linteval_ray.config import DEFAULT_RANK_BY, RankBy
from linteval_ray.config.section import without_credentials
from linteval_ray.reduce.intervals import RESAMPLES
from linteval_ray.reduce.metrics import GroupMetrics, RunMetrics
from linteval_ray.reduce.paired import paired_deltas, scored_rows, shared_samples
from linteval_ray.reduce.ranking import RANK_METRICS, pass_x_reduction, ranked_by
from linteval_ray.report.html import write_page
from linteval_ray.report.tables import Table, interval, num, pct, to_markdown
from linteval_ray.schema import ResultRow
from linteval_ray.sets.folder import CURVE_PNG, LEADERBOARD_HTML, LEADERBOARD_JSON, LEADERBOARD_MD, SetFolder
from linteval_ray.store.folder import SITE_DIR, RunFolder
from linteval_ray.store.fs import ObjectStore

# What the paired comparison reads of a result row (the rest of a row is not needed for it).
PAIRED_COLUMNS = ["row_id", "sample_id", "draw", "status", "pass_at_1", "metrics"]


class Delta(BaseModel):
    value: float | None = Field(description="this model − the baseline")
    ci: list[float] | None = Field(description="paired bootstrap 95 % interval [low, high]")


class LeaderboardEntry(BaseModel):
    name: str
    output: str = Field(description="the model's run folder, relative to the set's")
    model: str | None = None
    step: int | None = None
    overall: GroupMetrics
    by_language: dict[str, GroupMetrics]
    paired_samples: int | None = None
    delta: dict[str, Delta] | None = Field(default=None, description="against the baseline; null for the "
                                           "baseline itself and until the baseline is evaluated")


class Leaderboard(BaseModel):
    baseline: str
    rank_by: RankBy = Field(default=DEFAULT_RANK_BY, description="the metric the tables rank by, best first")
    models: list[LeaderboardEntry]


class Board:
    """The leaderboard as models finish: each model's metrics, and its deltas against the
    baseline once both are in (the baseline's rows are kept; a model's only while it is added)."""

    def __init__(self, baseline: str, order: Sequence[str], rank_by: RankBy = DEFAULT_RANK_BY) -> None:
        self.baseline = baseline
        self.rank_by = rank_by
        self._order = list(order)
        self._entries: dict[str, LeaderboardEntry] = {}
        self._baseline_rows: dict[str, ResultRow] | None = None
        self._waiting: dict[str, RunFolder] = {}  # models added before the baseline: their deltas wait

    @property
    def names(self) -> list[str]:
        """The models on the board so far."""
        return list(self._entries)

    def order(self, names: Sequence[str]) -> None:
        self._order = list(names)

    def add(self, name: str, folder: RunFolder, metrics: RunMetrics, *, model: str | None, step: int | None) -> None:
        model = without_credentials(model) if model else model  # an endpoint's URL names it
        self._entries[name] = LeaderboardEntry(name=name, output=f"models/{name}", model=model, step=step,
                                               overall=metrics.overall, by_language=metrics.by_language)
        if name == self.baseline:
            self._baseline_rows = scored_rows(paired_rows(folder))
            for other, other_folder in self._waiting.items():
                self._pair(other, other_folder)
            self._waiting.clear()
        elif self._baseline_rows is None:
            self._waiting[name] = folder
        else:
            self._pair(name, folder)

    def _pair(self, name: str, folder: RunFolder) -> None:
        assert self._baseline_rows is not None
        paired = shared_samples(self._baseline_rows, scored_rows(paired_rows(folder)))
        entry = self._entries[name]
        entry.paired_samples = len(paired.a)
        entry.delta = {d.metric.key: Delta(value=d.delta, ci=d.ci) for d in paired_deltas(paired.a, paired.b)}

    def leaderboard(self) -> Leaderboard:
        names = [n for n in self._order if n in self._entries] + [n for n in self._entries if n not in self._order]
        return Leaderboard(baseline=self.baseline, rank_by=self.rank_by, models=[self._entries[n] for n in names])


def paired_rows(folder: RunFolder) -> list[ResultRow]:
    """A run's rows as the paired comparison reads them (from results.parquet, only those columns)."""
    table = pq.read_table(io.BytesIO(folder.store.read_bytes(folder.results)), columns=PAIRED_COLUMNS)
    return [ResultRow.model_validate(row) for row in table.to_pylist()]


def write_leaderboard(folder: SetFolder, board: Leaderboard) -> list[str]:
    """leaderboard.json, .md, .html (and the learning curve when steps are known); their URLs."""
    store = folder.store
    written = [folder.path(LEADERBOARD_JSON)]
    store.write_atomic(written[0], json.dumps(board.model_dump(mode="json"), indent=2).encode())
    curve = learning_curve_png(board)
    if curve is not None:
        store.write_atomic(folder.path(CURVE_PNG), curve)
        written.append(folder.path(CURVE_PNG))
    store.write_atomic(folder.path(LEADERBOARD_MD), leaderboard_markdown(board, curve is not None).encode())
    written.append(folder.path(LEADERBOARD_MD))
    written.append(write_leaderboard_page(folder.path(LEADERBOARD_HTML), board, curve is not None, store))
    return written


def ranked(board: Leaderboard) -> list[LeaderboardEntry]:
    """Best first by the board's ``rank_by``, as ``compare`` ranks runs."""
    return ranked_by(board.models, lambda entry: entry.overall, board.rank_by)


LEADERBOARD_HEADERS = ["model", "step", "n", "Pass@1×Reduction@P", "Pass@1", "95% CI", "Reduction@P", "95% CI",
                       "New@P", "ΔLine@P", "Unchanged", "ΔPass@1", "95% CI", "ΔReduction@P", "95% CI"]


def leaderboard_table(board: Leaderboard) -> Table:
    rows = []
    for entry in ranked(board):
        g, delta = entry.overall, entry.delta or {}
        name = f"{entry.name} (baseline)" if entry.name == board.baseline else entry.name
        rows.append([name, "-" if entry.step is None else str(entry.step), str(g.n), pct(pass_x_reduction(g)),
                     pct(g.pass_at_1), interval(g.pass_at_1_ci), pct(g.reduction_at_p), interval(g.reduction_at_p_ci),
                     pct(g.new_at_p), num(g.delta_line_at_p, 1), pct(g.unchanged),
                     *_delta_cells(delta.get("pass_at_1")), *_delta_cells(delta.get("reduction_at_p"))])
    return Table(title=f"Leaderboard, best {RANK_METRICS[board.rank_by][0]} first (Δ: against {board.baseline}, "
                 "paired over the samples both scored; Unchanged: revisions identical to the original)",
                 headers=LEADERBOARD_HEADERS, rows=rows)


def language_table(board: Leaderboard) -> Table:
    languages = sorted({lang for e in board.models for lang in e.by_language})
    rows = [[e.name, *(f"{pct(e.by_language[lang].pass_at_1)} / {pct(e.by_language[lang].reduction_at_p)}"
                       if lang in e.by_language else "-" for lang in languages)] for e in ranked(board)]
    return Table(title="By language: Pass@1 / Reduction@P", headers=["model", *languages], rows=rows)


def _delta_cells(delta: Delta | None) -> list[str]:
    if delta is None or delta.value is None:
        return ["-", "-"]
    ci = "-" if delta.ci is None else f"{100 * delta.ci[0]:+.1f} … {100 * delta.ci[1]:+.1f}"
    return [f"{100 * delta.value:+.1f} pp", ci]


INTERVALS_NOTE = (f"Intervals: Pass@1 Wilson, Reduction@P a bootstrap over samples; deltas a paired bootstrap "
                  f"({RESAMPLES} resamples) over the samples both runs scored; an interval holding 0 is no clear "
                  "difference.")


def leaderboard_markdown(board: Leaderboard, curve: bool) -> str:
    parts = [f"# LintEval leaderboard ({len(board.models)} models, baseline {board.baseline})", "", INTERVALS_NOTE,
             "", to_markdown(leaderboard_table(board)), "", to_markdown(language_table(board)), ""]
    if curve:
        parts += ["### Learning curve", "", f"![learning curve]({CURVE_PNG})", ""]
    parts += ["Each model's results: `models/<name>/` (report.md, report/index.html, results.parquet).", ""]
    return "\n".join(parts)


def write_leaderboard_page(url: str, board: Leaderboard, curve: bool, store: ObjectStore) -> str:
    """leaderboard.html: the ranked table, each model linking to its results browser."""
    table = leaderboard_table(board)
    links = {entry.name: f"{entry.output}/{SITE_DIR}/index.html" for entry in board.models}
    head = "".join(f"<th>{html.escape(h)}</th>" for h in table.headers)
    body = "".join(_row_html(row, links[entry.name]) for row, entry in zip(table.rows, ranked(board), strict=True))
    title = f"LintEval leaderboard: {len(board.models)} models"
    parts = [f"<h1>{html.escape(title)}</h1>", f"<p class='note'>{html.escape(INTERVALS_NOTE)}</p>",
             f"<h3>{html.escape(table.title)}</h3><table id='leaderboard'><thead><tr>{head}</tr></thead>"
             f"<tbody>{body}</tbody></table>", _table_html(language_table(board))]
    if curve:
        parts.append(f"<h3>Learning curve</h3><div class='plots'><img src='{CURVE_PNG}' alt='learning curve'></div>")
    return write_page(url, title, "".join(parts), store)


def _row_html(cells: list[str], link: str) -> str:
    first = f"<td><a href='{html.escape(link, quote=True)}'>{html.escape(cells[0])}</a></td>"
    return "<tr>" + first + "".join(f"<td>{html.escape(c)}</td>" for c in cells[1:]) + "</tr>"


def _table_html(table: Table) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in table.headers)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in table.rows)
    return f"<h3>{html.escape(table.title)}</h3><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def learning_curve_png(board: Leaderboard) -> bytes | None:
    """Pass@1 and Reduction@P (95 % intervals) against the training step; None when no model has one."""
    stepped = sorted((e for e in board.models if e.step is not None), key=lambda e: e.step or 0)
    if not stepped:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), dpi=110)
    for ax, (label, value, ci) in zip(axes, (("Pass@1", "pass_at_1", "pass_at_1_ci"),
                                             ("Reduction@P", "reduction_at_p", "reduction_at_p_ci")), strict=True):
        _curve(ax, stepped, value, ci)
        for other in (e for e in board.models if e.step is None):
            level = getattr(other.overall, value)
            if level is not None:
                ax.axhline(100 * level, linestyle="--", linewidth=1, color="#888888")
                ax.annotate(other.name, (0, 100 * level), xycoords=("axes fraction", "data"), fontsize=7,
                            va="bottom", color="#555555")
        ax.set_title(f"{label} by training step (95% CI)")
        ax.set_xlabel("step")
        ax.set_ylabel("%")
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return buffer.getvalue()


def _curve(ax: object, stepped: Sequence[LeaderboardEntry], value: str, ci: str) -> None:
    points = [(e.step, getattr(e.overall, value), getattr(e.overall, ci)) for e in stepped]
    points = [(s, v, c) for s, v, c in points if v is not None]
    if not points:
        return
    steps = [s for s, _, _ in points]
    values = [100 * v for _, v, _ in points]
    low = [100 * (v - c[0]) if c else 0.0 for _, v, c in points]
    high = [100 * (c[1] - v) if c else 0.0 for _, v, c in points]
    ax.errorbar(steps, values, yerr=[low, high], marker="o", capsize=3, color="#4C72B0")  # type: ignore[attr-defined]


def metrics_of(folder: RunFolder) -> RunMetrics:
    return RunMetrics.model_validate(json.loads(folder.store.read_bytes(folder.metrics)))
