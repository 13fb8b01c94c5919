"""Corpus metrics are ratios of sums over passing rows, as the dataset card defines them."""

from __future__ import annotations

import pytest

from linteval_ray.reduce.metrics import compute
from linteval_ray.schema import CategoryCount, ResultRow, SampleMetrics, Status, Verdict


def _row(sid: str, lang: str, passed: bool, n_in: int, n_out: int, new: int, added: int, deleted: int,
         draw: int = 0, status: Status = Status.EVALUATED) -> ResultRow:
    return ResultRow(
        sample_id=sid, draw=draw, row_id=f"{sid}/{draw}", language=lang, status=status,
        pass_at_1=passed, verdict=Verdict.PASSED if passed else Verdict.WRONG_ANSWER,
        metrics=SampleMetrics(
            original_total_messages=n_in, revised_total_messages=n_out,
            old_messages_remaining=n_out - new, new_messages_count=new,
            added_lines=added, deleted_lines=deleted,
            category_counts=[CategoryCount(category="style", original=n_in, revised=n_out,
                                           remaining=n_out - new, new=new)],
        ),
    )


def test_sums_not_means_of_ratios():
    rows = [
        _row("a", "cpp", True, n_in=10, n_out=2, new=1, added=5, deleted=3),   # fixed 9
        _row("b", "cpp", True, n_in=2, n_out=2, new=0, added=1, deleted=1),    # fixed 0
        _row("c", "py3", True, n_in=4, n_out=0, new=0, added=2, deleted=2),    # fixed 4
        _row("d", "py3", False, n_in=100, n_out=0, new=0, added=50, deleted=50),  # not passing: ignored
    ]
    m = compute(rows)
    assert (m.overall.n, m.overall.n_passed) == (4, 3)
    assert m.overall.pass_at_1 == pytest.approx(3 / 4)
    assert m.overall.reduction_at_p == pytest.approx((16 - 4) / 16)   # mean of ratios would be 0.6
    assert m.overall.new_at_p == pytest.approx(1 / 16)
    assert m.overall.delta_line_at_p == pytest.approx(14 / 3)
    assert m.overall.line_per_fix_at_p == pytest.approx(14 / 13)
    assert m.by_language["cpp"].reduction_at_p == pytest.approx(8 / 12)
    assert m.by_language["py3"].n_passed == 1
    assert m.by_category["style"].reduction_at_p == pytest.approx(12 / 16)


def test_invalid_inputs_are_excluded_and_counted():
    rows = [
        _row("a", "cpp", True, 4, 0, 0, 1, 1),
        ResultRow(sample_id="#row-3", row_id="#row-3/0", status=Status.INVALID_INPUT, error="bad"),
    ]
    m = compute(rows)
    assert m.overall.n == 1 and m.excluded == 1
    assert m.statuses == {"evaluated": 1, "invalid_input": 1}


def test_pass_at_k_over_draws():
    rows = [_row("a", "cpp", p, 1, 0, 0, 1, 1, draw=i) for i, p in enumerate([True, False, False, False])]
    rows += [_row("b", "cpp", False, 1, 0, 0, 1, 1, draw=i) for i in range(4)]
    m = compute(rows)
    assert m.draws == 4
    assert m.pass_at_k["pass@1"] == pytest.approx((1 / 4 + 0) / 2)
    assert m.pass_at_k["pass@4"] == pytest.approx((1 + 0) / 2)
