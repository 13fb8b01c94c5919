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


def test_invalid_problems_count_as_not_passed_and_are_named():
    broken = ResultRow(sample_id="x_cpp_0", row_id="x_cpp_0/0", problem_id="x", language="cpp",
                       status=Status.INVALID_PROBLEM, error="generator does not compile")
    m = compute([_row("a", "cpp", True, 4, 0, 0, 1, 1), broken])
    # Pass@1 as the card defines it: passed / every evaluated sample
    assert (m.overall.n, m.overall.n_passed, m.overall.pass_at_1) == (2, 1, 0.5)
    assert m.invalid_problems == ["x"] and m.excluded == 0
    assert any("count as not passed: x" in w for w in m.warnings())


def test_infra_errors_are_never_scored_as_the_models_failure():
    fault = ResultRow(sample_id="b", row_id="b/0", language="cpp", status=Status.INFRA_ERROR, error="sandbox")
    m = compute([_row("a", "cpp", True, 4, 0, 0, 1, 1), fault])
    assert (m.overall.n, m.overall.pass_at_1, m.excluded) == (1, 1.0, 1)
    assert any("infra_error" in w and "rerun" in w for w in m.warnings())


def test_the_headline_says_what_leaving_the_infra_rows_out_is_worth():
    rows = [_row("a", "cpp", True, 1, 0, 0, 1, 1), _row("b", "cpp", False, 1, 1, 0, 0, 0),
            ResultRow(sample_id="c", row_id="c/0", language="cpp", status=Status.INFRA_ERROR, error="sandbox")]
    m = compute(rows)
    assert (m.overall.pass_at_1, m.pass_at_1_infra_as_failed) == (pytest.approx(1 / 2), pytest.approx(1 / 3))
    assert "Pass@1 50.0% (33.3% with its 1 infra_error row(s) counted as failures)" in m.headline()
    clean = compute(rows[:2])
    assert clean.pass_at_1_infra_as_failed == clean.overall.pass_at_1 and "infra_error" not in clean.headline()


def test_lint_agreement_over_samples_not_draws_and_its_warning():
    from linteval_ray.schema import LintAgreement

    rows = []
    for sid, lang, agreement in [("a", "cpp", (3, 3, 3)), ("b", "cpp", (7, 20, 5)), ("c", "py3", (2, 2, 2))]:
        for draw in range(2):
            row = _row(sid, lang, True, 1, 0, 0, 1, 1, draw=draw)
            row.lint_agreement = LintAgreement(recorded=agreement[0], relinted=agreement[1], matched=agreement[2])
            rows.append(row)
    m = compute(rows)
    cpp = m.lint_agreement.by_language["cpp"]
    assert (cpp.samples, cpp.exact, cpp.recorded, cpp.relinted, cpp.matched) == (2, 1, 10, 23, 8)
    assert cpp.recall == pytest.approx(0.8) and cpp.precision == pytest.approx(8 / 23)
    assert m.lint_agreement.overall.samples == 3 and m.lint_agreement.by_language["py3"].exact_rate == 1.0
    warnings = m.warnings()
    assert any(w.startswith("cpp: our re-lint agrees exactly") for w in warnings)
    assert not any(w.startswith("py3:") for w in warnings)


def test_suppressions_added_are_counted():
    rows = [_row("a", "cpp", True, 4, 0, 0, 1, 1), _row("b", "py3", True, 2, 2, 0, 1, 1),
            _row("c", "py3", True, 2, 2, 0, 1, 1)]
    rows[0].suppressions_added, rows[1].suppressions_added, rows[2].suppressions_added = 3, 0, 1
    m = compute(rows)
    assert (m.suppressions.rows_with_added, m.suppressions.added) == (2, 4)


def test_every_group_carries_its_confidence_intervals():
    rows = [_row(f"s{i}", "cpp" if i % 2 else "py3", i % 3 != 0, 4, i % 4, 0, 1, 1) for i in range(30)]
    m = compute(rows)
    for group in [m.overall, *m.by_language.values()]:
        assert group.pass_at_1_ci is not None and group.pass_at_1_ci[0] <= group.pass_at_1 <= group.pass_at_1_ci[1]
        low, high = group.reduction_at_p_ci
        assert low <= group.reduction_at_p <= high


def test_a_lint_error_row_counts_for_pass_at_1_but_not_for_the_alert_metrics():
    from linteval_ray.report.tables import metric_tables
    from linteval_ray.schema.result import LintFailure

    crashed = _row("b", "py3", True, 0, 0, 0, 0, 0).model_copy(update={
        "metrics": None, "lint_error": LintFailure(side="revision", reason="pylint: RecursionError")})
    rows = [_row("a", "cpp", True, n_in=10, n_out=2, new=1, added=5, deleted=3), crashed,
            _row("c", "py3", False, n_in=4, n_out=4, new=0, added=1, deleted=0)]
    m = compute(rows)
    assert (m.overall.n, m.overall.n_passed, m.overall.lint_errors) == (3, 2, 1)
    assert m.overall.pass_at_1 == pytest.approx(2 / 3)  # the crashed linter does not fail the program
    assert m.overall.reduction_at_p == pytest.approx(8 / 10)  # from row a alone, nothing made up for b
    assert m.overall.delta_line_at_p == pytest.approx(8 / 1)
    assert (m.by_language["py3"].lint_errors, m.by_language["cpp"].lint_errors) == (1, 0)
    assert any("1 row(s) had a linter failure" in w for w in m.warnings())
    outcomes = {r[0]: r[1] for t in metric_tables(m) if t.title == "Outcomes" for r in t.rows}
    assert outcomes["lint errors (judged, not in the alert metrics): py3 1"] == "1"


def test_the_unchanged_share_counts_revisions_whose_line_diff_is_empty_passing_or_not():
    from linteval_ray.validate.sample_metrics import line_changes

    rows = [
        _row("a", "cpp", True, n_in=3, n_out=3, new=0, added=0, deleted=0),  # the original returned
        _row("b", "cpp", False, n_in=3, n_out=3, new=0, added=0, deleted=0),  # returned, and failing (its tests)
        _row("c", "py3", True, n_in=3, n_out=0, new=0, added=2, deleted=2),
        ResultRow(sample_id="d", row_id="d/0", language="py3", status=Status.EVALUATED,  # no program extracted
                  verdict=Verdict.EXTRACTION_FAILED),
    ]
    m = compute(rows)
    assert m.overall.unchanged == pytest.approx(2 / 3) and m.by_language["py3"].unchanged == 0.0
    # What counts as unchanged: the lines as written; CRLF and the final newline change no line.
    assert line_changes("int x;\nint y;\n", "int x;\r\nint y;") == (0, 0)
    assert line_changes("int x;\n", "int x; \n") == (1, 1)  # a trailing space is an edit (a linter may flag it)
