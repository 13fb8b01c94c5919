"""What CodeContests-O's report and results browser show.

Tables: Pass@1 by language (with Wilson intervals, shared), pass@k for every k with bootstrap
intervals overall, by language and by each facet (difficulty, source, rating), the outcomes, and
the samples with the lowest pass rates. The browser's index has a line per row (language, problem,
verdict, difficulty, source, tests passed); a row's page shows the statement, the solution, the
first failing test (input, expected answer, output, how it ended, the evidence) and the raw
response with its reasoning collapsed. Statements are read back from the split (the name,
title and description columns only), as LintEval's originals are.
"""

from __future__ import annotations

import logging
from collections.abc import Generator, Iterator, Mapping, Sequence
from contextlib import closing
from typing import Any

from linteval_ray.load.presets import resolve_source
from linteval_ray.load.readers import iter_rows
from linteval_ray.load.split import split_files
from linteval_ray.reduce.metrics import RunMetrics
from linteval_ray.report.originals import Original, OriginalsUnavailable
from linteval_ray.report.sample_view import lines_of, outcome, reasoning_and_answer, shown_template
from linteval_ray.report.tables import GROUP_HEADERS, Table, group_row, interval, pct
from linteval_ray.schema import Status
from linteval_ray.schema.table import ResultTable
from linteval_ray.store.folder import RunFolder
from linteval_ray.store.manifest import read_manifest
from linteval_ray.tasks.base import SiteView
from linteval_ray.tasks.codecontests_o.metrics import CodeContestsMetrics, GroupPassAtK
from linteval_ray.tasks.codecontests_o.prompt import messages
from linteval_ray.tasks.codecontests_o.record import CodeContestsRecord, title_of

log = logging.getLogger(__name__)

HARDEST_SHOWN = 50  # samples of the lowest pass rate the report lists (metrics.json has them all)
Row = dict[str, Any]


# -- tables ----------------------------------------------------------------------------------------


def report_tables(metrics: RunMetrics) -> list[Table]:
    tables = [Table(title="Pass@1 by language", headers=GROUP_HEADERS[:5],
                    rows=[group_row("overall", metrics.overall)[:5]]
                    + [group_row(lang, g)[:5] for lang, g in metrics.by_language.items()])]
    if metrics.task_metrics:
        detail = CodeContestsMetrics.model_validate(metrics.task_metrics)
        tables.append(pass_at_k_table("pass@k (unbiased) with 95% bootstrap intervals over samples",
                                      {"overall": detail.overall, **detail.by_language}))
        for facet, values in detail.by_facet.items():
            tables.append(pass_at_k_table(f"pass@k by {facet}", values))
        hardest = sorted(detail.problems, key=lambda p: (p.pass_rate, p.sample_id))[:HARDEST_SHOWN]
        tables.append(Table(title=f"Lowest pass rates ({len(hardest)} of {len(detail.problems)} samples)",
                            headers=["sample", "draws", "passed", "pass rate", "verdicts"],
                            rows=[[p.sample_id, str(p.draws), str(p.passed), pct(p.pass_rate),
                                   ", ".join(f"{k} {v}" for k, v in p.verdicts.items())] for p in hardest]))
    tables.append(Table(title="Outcomes", headers=["status / verdict", "rows"],
                        rows=[[f"status: {k}", str(v)] for k, v in sorted(metrics.statuses.items())]
                        + [[f"verdict: {k}", str(v)]
                           for k, v in sorted(metrics.verdicts.items(), key=lambda kv: -kv[1])]
                        + [[f"invalid problem (counted as not passed): {p}", "-"] for p in metrics.invalid_problems]))
    return tables


def pass_at_k_table(title: str, groups: Mapping[str, GroupPassAtK]) -> Table:
    ks = max((len(g.pass_at_k) for g in groups.values()), default=0)
    headers = ["group", "samples", *[h for k in range(1, ks + 1) for h in (f"pass@{k}", "95% CI")]]
    rows = []
    for name, g in groups.items():
        cells = [name, str(g.samples)]
        for k in range(1, ks + 1):
            value = g.pass_at_k.get(f"pass@{k}")
            cells += [pct(value.value), interval(value.ci)] if value else ["-", "-"]
        rows.append(cells)
    return Table(title=title, headers=headers, rows=rows)


# -- the results browser ---------------------------------------------------------------------------

SUMMARY_FIELDS = ("row_id", "language", "problem", "title", "outcome", "difficulty", "source", "tests_passed",
                  "tests", "time_s")
COLUMNS: list[dict[str, Any]] = [
    {"key": "row_id", "label": "row"},
    {"key": "language", "label": "language"},
    {"key": "problem", "label": "problem"},
    {"key": "outcome", "label": "verdict"},
    {"key": "difficulty", "label": "difficulty"},
    {"key": "source", "label": "source"},
    {"key": "tests_passed", "label": "tests passed", "numeric": True},
    {"key": "tests", "label": "tests", "numeric": True},
    {"key": "time_s", "label": "time s", "numeric": True, "digits": 2},
]
FILTERS: list[dict[str, Any]] = [
    {"key": "language", "label": "Language", "field": "language"},
    {"key": "verdict", "label": "Verdict", "field": "outcome"},
    {"key": "difficulty", "label": "Difficulty", "field": "difficulty"},
    {"key": "source", "label": "Source", "field": "source"},
]


def summary_of(row: Row, record: Original | None) -> list[Any]:
    facets = dict(row["facets"] or [])
    return [row["row_id"], row["language"], row["problem_id"], record.title if record is not None else None,
            outcome(row["verdict"], row["status"]), facets.get("difficulty"), facets.get("source"),
            row["tests_passed"], row["tests_generated"], round(row["timings"]["total_s"], 2)]


def chunk_of_rows(rows: Sequence[Row], records: Mapping[str, Original]) -> dict[str, Any]:
    part: dict[str, Any] = {"samples": {}, "rows": {}}
    for row in rows:
        record = records.get(row["sample_id"])
        if row["sample_id"] not in part["samples"]:
            part["samples"][row["sample_id"]] = sample_detail(row, record)
        part["rows"][row["row_id"]] = row_detail(row)
    return part


def sample_detail(row: Row, record: Original | None) -> dict[str, Any]:
    return {"task": "codecontests-o", "problem_id": row["problem_id"],
            "title": record.title if record is not None else None,
            "statement": record.code if record is not None else None,
            "prompt": prompt_of(row, record)}


def prompt_of(row: Row, record: Original | None) -> list[dict[str, str]] | None:
    """The prompt the row was generated from, when its template on disk is the one recorded."""
    template = shown_template(row["prompt_version"])
    if template is None or record is None:
        return None
    shown = CodeContestsRecord(sample_id=row["sample_id"], problem_id=row["problem_id"], language=row["language"],
                               title=record.title or row["problem_id"], statement=record.code, tests_key="-", tests=1,
                               time_limit_s=1.0, memory_mb=64, limits_from="-")
    return messages(shown.model_dump_json(), template)


def row_detail(row: Row) -> dict[str, Any]:
    reasoning, answer = reasoning_and_answer(row["raw_response"])
    return {
        "row_id": row["row_id"], "sample_id": row["sample_id"], "draw": row["draw"], "language": row["language"],
        "outcome": outcome(row["verdict"], row["status"]), "passed": row["pass_at_1"],
        "validation_error": row["validation_error"], "error": row["error"], "model": row["model"],
        "prompt_version": row["prompt_version"], "tokens_used": row["tokens_used"],
        "tests": {"generated": row["tests_generated"], "passed": row["tests_passed"], "failed": row["tests_failed"],
                  "dropped": row["tests_dropped"]},
        "facets": dict(row["facets"] or []), "timings": row["timings"], "first_failure": row["first_failure"],
        "metrics": None, "lint_agreement": None, "suppressions_added": None, "lint_error": None,
        "revised": lines_of(row["revised_code"]) if row["revised_code"] is not None else None, "diff": None,
        "original_alerts": [], "revised_alerts": [], "reasoning": reasoning, "response": answer,
    }


def statements_of_run(folder: RunFolder, results: ResultTable) -> Iterator[Original]:
    """Each sample's statement (an ``Original`` whose code is the statement), read back from the
    run's split: the name, title and description columns only."""
    manifest = read_manifest(folder)
    if manifest is None:
        return
    samples: dict[str, list[tuple[str, str]]] = {}  # problem -> its (sample id, language)
    for sample_id, problem, language, status in zip(results.column("sample_id"), results.column("problem_id"),
                                                   results.column("language"), results.column("status"), strict=True):
        known = samples.setdefault(problem, []) if problem is not None else []
        if status != Status.INVALID_INPUT and problem is not None and (sample_id, language) not in known:
            known.append((sample_id, language))
    try:
        for raw in _problems(resolve_source(manifest.dataset_url), folder):
            name = raw.get("name")
            if isinstance(name, str) and name in samples and isinstance(raw.get("description"), str):
                title = raw.get("title") if isinstance(raw.get("title"), str) else title_of(name)
                for sample_id, language in samples.pop(name):
                    yield Original(sample_id, name, title, language, raw["description"], None)
    except Exception as exc:  # the report must still be written without the statements
        log.warning("statements not shown in the report: cannot read %s (%s)", manifest.dataset_url, exc)
        raise OriginalsUnavailable(str(exc)) from exc


def _problems(url: str, folder: RunFolder) -> Generator[dict[str, Any], None, None]:
    for file in split_files(url, folder.store):
        with closing(iter_rows(file, folder.store.storage, columns=("name", "title", "description"))) as rows:
            for _, raw in rows:
                if isinstance(raw, dict):
                    yield raw


SITE_VIEW = SiteView(summary_fields=SUMMARY_FIELDS, summary_of=summary_of, chunk_of_rows=chunk_of_rows,
                     records_of_run=statements_of_run, columns=COLUMNS, filters=FILTERS)
