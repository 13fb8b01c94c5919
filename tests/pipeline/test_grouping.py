"""Rows reach the validation pool grouped by problem, so one actor sets a problem up once."""

from __future__ import annotations

from linteval_ray.load.loader import load_split
from linteval_ray.load.presets import resolve_source
from linteval_ray.pipeline.inputs import input_rows


def test_every_problem_s_rows_of_every_language_are_consecutive() -> None:
    records = load_split(resolve_source("bundled")).records
    rows = input_rows(records, draws=2)

    problems = [row["problem_id"] for row in rows]
    runs = [p for i, p in enumerate(problems) if i == 0 or p != problems[i - 1]]
    assert len(runs) == len(set(problems)), "a problem's rows are split by another problem's"
    languages_of = {p: {r["language"] for r in rows if r["problem_id"] == p} for p in set(problems)}
    assert any(len(langs) > 1 for langs in languages_of.values()), "the bundled set has multi-language problems"
    assert len(rows) == 2 * len(records)
