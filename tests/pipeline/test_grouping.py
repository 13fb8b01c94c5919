"""Rows reach the validation pool grouped by problem, so one actor sets a problem up once."""

from __future__ import annotations

from linteval_ray.load.loader import load_split
from linteval_ray.load.presets import resolve_source
from linteval_ray.pipeline.inputs import input_rows
from linteval_ray.pipeline.source import grouped_by_problem


def _runs(values: list[str]) -> list[str]:
    return [v for i, v in enumerate(values) if i == 0 or v != values[i - 1]]


def test_a_split_ordered_by_language_reaches_the_pool_grouped_by_problem() -> None:
    records = load_split(resolve_source("bundled")).records
    # The worst order for set-up: every problem's C++, Python and Java samples far apart.
    by_language = sorted(records, key=lambda r: (r.language, r.sample_id))
    rows = [row for record in by_language for row in input_rows(record, draws=2)]
    assert len(_runs([r["problem_id"] for r in rows])) > len({r["problem_id"] for r in rows})

    blocks = list(grouped_by_problem(rows, block_rows=4, window_rows=len(rows)))

    flat = [row for block in blocks for row in block]
    assert sorted(r["row_id"] for r in flat) == sorted(r["row_id"] for r in rows)
    problems = [r["problem_id"] for r in flat]
    assert len(_runs(problems)) == len(set(problems)), "a problem's rows are split by another problem's"
    languages = {p: {r["language"] for r in flat if r["problem_id"] == p} for p in set(problems)}
    assert any(len(langs) > 1 for langs in languages.values()), "the bundled set has multi-language problems"
    assert all(len(block) == 4 for block in blocks[:-1])
    # draws of one sample stay together, in order
    assert [r["draw"] for r in flat[:2]] == [0, 1] and flat[0]["sample_id"] == flat[1]["sample_id"]


def test_only_a_window_is_held_and_every_row_comes_out_once() -> None:
    rows = [{"row_id": f"s{i}/0", "sample_id": f"s{i}", "draw": 0, "problem_id": f"p{i % 3}", "language": "py3"}
            for i in range(10)]
    blocks = list(grouped_by_problem(iter(rows), block_rows=2, window_rows=4))
    assert [len(b) for b in blocks] == [2, 2, 2, 2, 2]
    assert [r["problem_id"] for r in blocks[0] + blocks[1]] == ["p0", "p0", "p1", "p2"]  # the first window
    assert sorted(r["row_id"] for b in blocks for r in b) == sorted(r["row_id"] for r in rows)
