"""TPR and TNR as the CodeContests-O pipeline defines them (``analyze_results.py``): per problem, the
macro average over problems, the intersection average and the pooled rates, by language, and the
Python 2 comparison; rows that were not judged are left out."""

from __future__ import annotations

import itertools

import pytest

from linteval_ray.schema import Status, Verdict
from linteval_ray.suite.metrics import Accumulator
from linteval_ray.suite.pools import Label
from linteval_ray.suite.rows import SuiteRow, rows_table

C, I = Label.CORRECT, Label.INCORRECT  # noqa: E741 -- the paper's two kinds
_numbers = itertools.count()


def row(problem: str, label: Label, accepted: bool, language: str = "cpp", *, failed: list[int] | None = None,
        status: Status = Status.EVALUATED, as_python3: Verdict | None = None) -> SuiteRow:
    verdict = None if status != Status.EVALUATED else Verdict.PASSED if accepted else Verdict.WRONG_ANSWER
    return SuiteRow(solution_id=f"{problem}/{label}/{next(_numbers)}", unit="p00f00000/u000000", source="test",
                    problem=problem, label=label, language=language, judged_as=language, status=status,
                    verdict=verdict, accepted=accepted if status == Status.EVALUATED else None, tests=3,
                    failed_tests=failed or ([] if accepted else [0]), as_python3=as_python3,
                    error=None if status == Status.EVALUATED else "why")


# A: 2 correct (1 accepted, rejected by test 2), 2 incorrect (both rejected); B: 1 correct (accepted), 4 incorrect
# (1 rejected); C: correct only (3, all accepted); D: incorrect only (1, rejected); E: not judged at all.
ROWS = [
    row("A", C, True), row("A", C, False, failed=[2]), row("A", I, False), row("A", I, False, "py3"),
    row("B", C, True, "py3"), row("B", I, False), row("B", I, True), row("B", I, True), row("B", I, True, "py3"),
    row("C", C, True), row("C", C, True, "java"), row("C", C, True, "java"),
    row("D", I, False, "java"),
    row("E", C, False, status=Status.INVALID_PROBLEM), row("A", C, False, status=Status.INVALID_INPUT),
    row("B", I, True, status=Status.INFRA_ERROR),
]


def published(rows: list[SuiteRow]) -> tuple[float, float, float, float]:
    """analyze_results.py, transcribed: per problem the accepted share of its solution_*.json files (TPR) and
    the rejected share of its incorrect_solution_*.json files (TNR), -1 without files; 'Average (Intersection)'
    over the problems with both, 'Total Average' over those with each."""
    problems = sorted({r.problem for r in rows if r.status == Status.EVALUATED})
    rates = []
    for problem in problems:
        correct = [r for r in rows if r.problem == problem and r.label == C and r.status == Status.EVALUATED]
        incorrect = [r for r in rows if r.problem == problem and r.label == I and r.status == Status.EVALUATED]
        tpr = sum(bool(r.accepted) for r in correct) / len(correct) if correct else -1
        tnr = sum(not r.accepted for r in incorrect) / len(incorrect) if incorrect else -1
        rates.append((tpr, tnr))
    both = [(tpr, tnr) for tpr, tnr in rates if tpr != -1 and tnr != -1]
    tprs = [tpr for tpr, _ in rates if tpr != -1]
    tnrs = [tnr for _, tnr in rates if tnr != -1]
    return (sum(t for t, _ in both) / len(both), sum(t for _, t in both) / len(both),
            sum(tprs) / len(tprs), sum(tnrs) / len(tnrs))


def test_macro_intersection_and_pooled_rates_are_the_published_ones() -> None:
    accumulator = Accumulator()
    accumulator.add(rows_table(ROWS))
    metrics = accumulator.metrics(["A", "B", "C", "D", "E", "F"])
    overall = metrics.overall

    # per problem: A tpr 1/2 tnr 2/2, B tpr 1/1 tnr 1/4, C tpr 3/3, D tnr 1/1
    assert overall.macro.tpr.value == pytest.approx((0.5 + 1 + 1) / 3)
    assert overall.macro.tnr.value == pytest.approx((1 + 0.25 + 1) / 3)
    assert overall.intersection.tpr.value == pytest.approx((0.5 + 1) / 2)
    assert overall.intersection.tnr.value == pytest.approx((1 + 0.25) / 2)
    assert overall.pooled.tpr.value == pytest.approx(5 / 6)
    assert overall.pooled.tnr.value == pytest.approx(4 / 7)
    assert (overall.macro.tpr.problems, overall.macro.tnr.problems, overall.intersection.tpr.problems) == (3, 3, 2)
    assert overall.macro.average == pytest.approx(((0.5 + 1 + 1) / 3 + (1 + 0.25 + 1) / 3) / 2)
    intersection_tpr, intersection_tnr, total_tpr, total_tnr = published(ROWS)
    assert (overall.intersection.tpr.value, overall.intersection.tnr.value) == pytest.approx(
        (intersection_tpr, intersection_tnr))
    assert (overall.macro.tpr.value, overall.macro.tnr.value) == pytest.approx((total_tpr, total_tnr))
    low, high = overall.macro.tpr.ci or [0, 0]
    assert 0.5 <= low <= overall.macro.tpr.value <= high <= 1.0

    assert metrics.statuses == {"evaluated": 13, "infra_error": 1, "invalid_input": 1, "invalid_problem": 1}
    assert metrics.invalid_problems == {"E": "why"}
    assert metrics.problems_without_solutions == 1  # F: indexed, never judged (E cannot judge)
    a = next(p for p in metrics.problems if p.problem == "A")
    assert (a.correct, a.accepted, a.incorrect, a.rejected, a.culprit_tests) == (2, 1, 2, 2, {2: 1})


def test_by_language_a_problem_counts_where_it_has_solutions_of_that_language() -> None:
    accumulator = Accumulator()
    accumulator.add(rows_table(ROWS))
    by_language = accumulator.metrics().by_language

    assert sorted(by_language) == ["cpp", "java", "py3"]
    java = by_language["java"]
    assert (java.macro.tpr.value, java.macro.tpr.problems, java.macro.tnr.value) == (1.0, 1, 1.0)  # C; D
    py3 = by_language["py3"]  # A: 1 incorrect rejected; B: 1 correct accepted, 1 incorrect accepted
    assert (py3.macro.tpr.value, py3.macro.tnr.value, py3.intersection.tpr.value) == (1.0, 0.5, 1.0)
    assert py3.intersection.tpr.problems == 1


def test_python2_solutions_are_compared_with_their_runs_on_python3() -> None:
    rows = [row("A", C, True, "py2", as_python3=Verdict.COMPILE_ERROR), row("A", C, True, "cpp"),
            row("A", I, False, "py2", as_python3=Verdict.COMPILE_ERROR),
            row("B", C, False, "py2", as_python3=Verdict.PASSED), row("B", I, False, "cpp")]
    accumulator = Accumulator()
    accumulator.add(rows_table(rows))
    python2 = accumulator.metrics().python2

    assert python2 is not None
    assert (python2.as_python2.macro.tpr.value, python2.as_python3.macro.tpr.value) == (0.5, 0.5)
    assert (python2.as_python2.pooled.tnr.value, python2.as_python3.pooled.tnr.value) == (1.0, 1.0)
    assert python2.as_python3.correct == 2 and python2.as_python3.accepted == 1
    # every solution, Python 2 ones on Python 3: A 1/2 (its py2 one does not compile), B 1/1 (it passes there)
    assert python2.overall_if_python3.macro.tpr.value == pytest.approx((0.5 + 1) / 2)
