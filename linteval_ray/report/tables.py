"""Metric tables as plain data, rendered to text, Markdown or HTML by one function each."""

from __future__ import annotations

import html

from pydantic import BaseModel

from linteval_ray.reduce.agreement import AgreementMetrics
from linteval_ray.reduce.health import GenerationHealth
from linteval_ray.reduce.metrics import GroupMetrics, RunMetrics
from linteval_ray.schema.table import ResultTable


class Table(BaseModel):
    title: str
    headers: list[str]
    rows: list[list[str]]


def pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def num(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def interval(ci: list[float] | None) -> str:
    return "-" if ci is None else f"{100 * ci[0]:.1f}–{100 * ci[1]:.1f}"


GROUP_HEADERS = ["group", "n", "passed", "Pass@1", "95% CI", "Reduction@P", "95% CI", "New@P", "ΔLine@P",
                 "LinePerFix@P"]


def group_row(name: str, g: GroupMetrics) -> list[str]:
    return [name, str(g.n), str(g.n_passed), pct(g.pass_at_1), interval(g.pass_at_1_ci), pct(g.reduction_at_p),
            interval(g.reduction_at_p_ci), pct(g.new_at_p), num(g.delta_line_at_p, 1), num(g.line_per_fix_at_p)]


def metric_tables(metrics: RunMetrics) -> list[Table]:
    tables = [
        Table(
            title="Metrics by language",
            headers=GROUP_HEADERS,
            rows=[group_row("overall", metrics.overall)]
            + [group_row(lang, g) for lang, g in metrics.by_language.items()],
        ),
        Table(
            title="Alert reduction by category (passing samples)",
            headers=["category", "alerts in", "alerts out", "Reduction@P"],
            rows=[[name, str(c.alerts_in), str(c.alerts_out), pct(c.reduction_at_p)]
                  for name, c in metrics.by_category.items()],
        ),
    ]
    tables.append(lint_agreement_table(metrics))
    if metrics.generation.rows:
        tables.append(generation_table(metrics.generation))
    if metrics.draws > 1:
        tables.append(Table(title=f"pass@k ({metrics.draws} draws per sample)", headers=["k", "pass@k"],
                            rows=[[k, pct(v)] for k, v in metrics.pass_at_k.items()]))
    tables.append(
        Table(
            title="Outcomes",
            headers=["status / verdict", "rows"],
            rows=[[f"status: {k}", str(v)] for k, v in sorted(metrics.statuses.items())]
            + [[f"verdict: {k}", str(v)] for k, v in sorted(metrics.verdicts.items(), key=lambda kv: -kv[1])]
            + [["suppressions added (ignored when scoring)", f"{metrics.suppressions.added} in "
                f"{metrics.suppressions.rows_with_added} rows"]]
            + [[lint_error_label(metrics), str(metrics.overall.lint_errors)]]
            + [[f"invalid problem (counted as not passed): {p}", "-"] for p in metrics.invalid_problems],
        )
    )
    return tables


def lint_error_label(metrics: RunMetrics) -> str:
    by_language = ", ".join(f"{lang} {g.lint_errors}" for lang, g in metrics.by_language.items() if g.lint_errors)
    return "lint errors (judged, not in the alert metrics)" + (f": {by_language}" if by_language else "")


def generation_table(g: GenerationHealth) -> Table:
    """Were the failures the model's or the budget's: cut responses, answers without code."""
    causes = g.extraction_failures
    rows = [
        ["responses / rows", f"{g.responses} / {g.rows}"],
        ["cut at max_tokens (finish_reason length)", f"{g.truncated} ({pct(g.truncated_rate)})"],
        ["  of which ran out of tokens while thinking", str(g.truncated_while_thinking)],
        ["no program in the response", f"{sum(causes.values())} ({pct(g.extraction_failure_rate)})"],
        ["  answered without code (no code block)", str(causes.get("no_code_block", 0))],
        ["  cut at max_tokens", str(causes.get("truncated", 0))],
        ["  <think> never closed", str(causes.get("unclosed_think", 0))],
        ["  empty", str(causes.get("empty", 0))],
        ["generation errors (prompt too long)", f"{g.generation_errors} ({g.prompt_too_long})"],
        ["generated tokens: mean / p95", f"{num(g.generated_tokens_mean, 0)} / {g.generated_tokens_p95 or '-'}"],
        ["reasoning tokens: mean (responses that reasoned)", num(g.reasoning_tokens_mean, 0)],
        ["tokens/s per request", num(g.tokens_per_s, 1)],
    ]
    return Table(title="Generation health", headers=["", "rows"], rows=rows)


AGREEMENT_HEADERS = ["group", "samples", "exact", "recorded", "re-linted", "matched", "recall", "precision"]


def agreement_row(name: str, a: AgreementMetrics) -> list[str]:
    return [name, str(a.samples), pct(a.exact_rate), str(a.recorded), str(a.relinted), str(a.matched),
            pct(a.recall), pct(a.precision)]


def lint_agreement_table(metrics: RunMetrics) -> Table:
    agreement = metrics.lint_agreement
    return Table(
        title="Lint agreement: the dataset's recorded original alerts vs our re-lint",
        headers=AGREEMENT_HEADERS,
        rows=[agreement_row("overall", agreement.overall)]
        + [agreement_row(lang, a) for lang, a in agreement.by_language.items()],
    )


def slowest_table(results: ResultTable, top: int = 10) -> Table:
    totals = results.field("timings", "total_s")
    # sorted() is stable with reverse=True too: ties stay in row order, as they always were
    slow = results.rows(sorted(range(len(totals)), key=totals.__getitem__, reverse=True)[:top])
    return Table(
        title=f"Slowest {len(slow)} rows (validation wall seconds, each row's own)",
        headers=["row", "language", "verdict", "total s", "lint s", "prepare s", "compile s", "tests s"],
        rows=[[r.row_id, r.language or "-", str(r.verdict or r.status), num(r.timings.total_s),
               num(r.timings.lint_s), num(r.timings.prepare_s), num(r.timings.compile_s), num(r.timings.tests_s)]
              for r in slow],
    )


def to_text(table: Table) -> str:
    widths = [max(len(h), *(len(r[i]) for r in table.rows)) if table.rows else len(h)
              for i, h in enumerate(table.headers)]
    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths, strict=True)))
    return "\n".join([table.title, line(table.headers), line(["-" * w for w in widths]),
                      *(line(r) for r in table.rows)])


def to_markdown(table: Table) -> str:
    head = "| " + " | ".join(table.headers) + " |"
    rule = "|" + "|".join(["---"] + ["---:"] * (len(table.headers) - 1)) + "|"
    body = ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in table.rows]
    return "\n".join([f"### {table.title}", "", head, rule, *body])


def to_html(table: Table) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in table.headers)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in table.rows)
    return f"<h3>{html.escape(table.title)}</h3><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
