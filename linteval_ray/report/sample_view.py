"""What the results browser shows of a row: its line in the sample table (``summary_of``), and
the details a sample page renders (``sample_detail``, ``row_detail``), as plain JSON values.

Rows come as ``SITE_COLUMNS`` of ``to_pylist`` (the values a ``ResultRow`` would hold, without
building one per row); the original program and the prompt's inputs come from the split.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from linteval_ray.prompt.reasoning import reasoning_text, split_reasoning
from linteval_ray.prompt.template import PromptError, PromptInputs, PromptTemplate, load_template
from linteval_ray.report.alert_marks import alert_marks, located
from linteval_ray.report.originals import Original
from linteval_ray.schema import ResultRow

Json = dict[str, Any]
Row = dict[str, Any]
SITE_COLUMNS = ("row_id", "sample_id", "draw", "language", "problem_id", "task", "facets", "status", "verdict",
                "pass_at_1", "validation_error", "error", "model", "prompt_version", "tokens_used", "tests_generated",
                "tests_passed", "tests_failed", "tests_dropped", "timings", "first_failure", "metrics",
                "lint_agreement", "suppressions_added", "lint_error", "revised_code", "raw_response",
                "original_messages", "revised_messages")

UNSCORED = "unscored"
SUMMARY_FIELDS = ("row_id", "language", "problem", "title", "outcome", "alerts_in", "alerts_out", "alerts_new",
                  "lines_changed", "time_s", "categories")


def outcome_of(row: ResultRow) -> str:
    return outcome(row.verdict, row.status)


def outcome(verdict: str | None, status: str) -> str:
    """The verdict of an evaluated row, else why it was not evaluated (its status)."""
    return str(verdict) if verdict is not None else str(status)


def summary_of(row: Row, record: Original | None) -> list[Any]:
    """The row's line in data/index.js, in SUMMARY_FIELDS order (arrays: ~13k of them)."""
    m = row["metrics"]
    return [
        row["row_id"],
        row["language"],
        row["problem_id"],
        record.title if record is not None else None,
        outcome(row["verdict"], row["status"]),
        m["original_total_messages"] if m else len(row["original_messages"]),
        m["revised_total_messages"] if m else None,
        m["new_messages_count"] if m else None,
        m["added_lines"] + m["deleted_lines"] if m else None,
        round(row["timings"]["total_s"], 2),
        alert_categories(row),
    ]


def alert_categories(row: Row) -> list[str]:
    """Categories with an alert in the original or the revision, rolled up as the metrics do."""
    m = row["metrics"]
    if m and m["category_counts"]:
        return [c["category"] for c in m["category_counts"] if c["original"] or c["revised"]]
    return sorted({a["category"] for a in [*row["original_messages"], *row["revised_messages"]]})


def sample_detail(row: Row, record: Original | None) -> Json:
    """What draws of one sample share: the problem, the original program, the prompt."""
    if record is None:
        return {"problem_id": row["problem_id"], "title": None, "original": None, "prompt": None}
    return {
        "problem_id": record.problem_id,
        "title": record.title,
        "original": lines_of(record.code),
        "prompt": prompt_messages(record, row["prompt_version"]),
    }


_DETAIL_METRICS_EXCLUDED = ("category_counts", "category_mrr")  # the page shows totals, not per category


def row_detail(row: Row, record: Original | None) -> Json:
    original, revised_alerts, metrics = row["original_messages"], row["revised_messages"], row["metrics"]
    original_marks, revised_marks, pairs = alert_marks(located(original), located(revised_alerts))
    if metrics is None:  # no revision was linted (none extracted, generation failed): nothing was fixed
        original_marks = [UNSCORED] * len(original)
    reasoning, answer = reasoning_and_answer(row["raw_response"])
    revised = lines_of(row["revised_code"]) if row["revised_code"] is not None else None
    return {
        "row_id": row["row_id"],
        "sample_id": row["sample_id"],
        "draw": row["draw"],
        "language": row["language"],
        "outcome": outcome(row["verdict"], row["status"]),
        "passed": row["pass_at_1"],
        "validation_error": row["validation_error"],
        "error": row["error"],
        "model": row["model"],
        "prompt_version": row["prompt_version"],
        "tokens_used": row["tokens_used"],
        "tests": {"generated": row["tests_generated"], "passed": row["tests_passed"], "failed": row["tests_failed"],
                  "dropped": row["tests_dropped"]},
        "timings": row["timings"],
        "first_failure": row["first_failure"],
        "metrics": ({k: v for k, v in metrics.items() if k not in _DETAIL_METRICS_EXCLUDED}
                    if metrics is not None else None),
        "lint_agreement": row["lint_agreement"],
        "suppressions_added": row["suppressions_added"],
        "lint_error": row["lint_error"],
        "revised": revised,
        "diff": line_diff(lines_of(record.code), revised) if record is not None and revised is not None else None,
        "original_alerts": [_alert(m, mark, pairs.get(i)) for i, (m, mark) in
                            enumerate(zip(original, original_marks, strict=True))],
        "revised_alerts": [_alert(m, mark) for m, mark in zip(revised_alerts, revised_marks, strict=True)],
        "reasoning": reasoning,
        "response": answer,
    }


def _alert(message: Json, mark: str, revised_line: int | None = None) -> Json:
    alert = {"line": message["line"], "column": message["column"], "tool": message["tool"],
             "check": message["check_name"], "category": message["category"], "text": message["message_text"],
             "mark": mark}
    if revised_line is not None:
        alert["revised_line"] = revised_line
    return alert


def lines_of(code: str) -> list[str]:
    """Lines as linters number them: split at ``\\n`` only (str.splitlines also breaks at form feeds
    and other separators, which would shift every alert below them); a CRLF's ``\\r`` is dropped."""
    lines = code.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def line_diff(original: list[str], revised: list[str]) -> list[list[Any]]:
    """difflib opcodes ``[tag, i1, i2, j1, j2]`` (tags e, r, d, i): the page lays both sides out."""
    matcher = difflib.SequenceMatcher(None, original, revised, autojunk=False)
    return [[tag[0], i1, i2, j1, j2] for tag, i1, i2, j1, j2 in matcher.get_opcodes()]


def reasoning_and_answer(raw: str | None) -> tuple[str | None, str | None]:
    """(reasoning, answer) as the page shows them: cut where scoring cut (``prompt/reasoning.py``),
    the reasoning without its outer tags; a response that never stopped thinking has an empty answer."""
    if raw is None:
        return None, None
    reasoning, answer = split_reasoning(raw)
    return (reasoning_text(reasoning) if reasoning is not None else None), (answer or "").strip("\n")


def prompt_messages(record: PromptInputs, prompt_version: str | None) -> list[dict[str, str]] | None:
    """The chat prompt the row was generated from, when the template on disk is the one recorded
    (``v1@<digest>``); an edited template, a replay or an unknown version shows no prompt."""
    template = shown_template(prompt_version)
    return template.render(record) if template is not None else None


def shows_prompts(prompt_versions: Iterable[str | None]) -> bool:
    """Whether any of these rows' pages shows its prompt (else the records' alerts are not needed)."""
    return any(shown_template(version) is not None for version in set(prompt_versions))


def shown_template(prompt_version: str | None) -> PromptTemplate | None:
    """The template a row's prompt is shown with: the one on disk, if it is the one recorded."""
    if not prompt_version or "@" not in prompt_version:
        return None
    version, digest = prompt_version.rsplit("@", 1)
    try:
        template = load_template(version)
    except PromptError:
        return None
    return template if template.digest == digest else None


def chunk_of_rows(rows: Sequence[Row], records: Mapping[str, Original]) -> Json:
    """One ``data/rows-<k>.js``: the details of its rows and of the samples they belong to."""
    part: Json = {"samples": {}, "rows": {}}
    for row in rows:
        record = records.get(row["sample_id"])
        if row["sample_id"] not in part["samples"]:
            part["samples"][row["sample_id"]] = sample_detail(row, record)
        part["rows"][row["row_id"]] = row_detail(row, record)
    return part
