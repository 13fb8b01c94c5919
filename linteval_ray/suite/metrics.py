"""TPR and TNR of a test suite, defined as the CodeContests-O pipeline computes them.

Read in its sources (github.com/cai-jianfeng/CodeContests-O, ``src/codecontests_o/solutions_eval.py``,
``core/validator.py``, ``analyze_results.py``): every solution of a problem is run on all of the
problem's tests; it is *accepted* when it passes every test. Per problem,

- **TPR** = correct solutions accepted / correct solutions judged (undefined without a correct one),
- **TNR** = incorrect solutions rejected / incorrect solutions judged (undefined without an incorrect one).

A judged solution is one with a result (``analyze_results.get_results`` divides by its result files):
a compile error, crash or time limit is a rejection like a wrong answer. Here that is every
``evaluated`` row; ``invalid_input`` rows (a pool entry that cannot be judged, which the pipeline
skips: an unknown language), ``invalid_problem`` rows (the problem cannot judge: not in the test
source, or its checker rejects its own expected answers) and ``infra_error`` rows (ours, retried by
a rerun) are left out and counted in ``statuses``. Over problems:

- **macro** (``analyze_results``' "Total Average", the paper's headline): the mean of the per-problem
  TPR over the problems with at least one correct solution judged; TNR likewise over the problems with
  at least one incorrect one;
- **intersection** (``analyze_results``' "Average (Intersection)"): both means over the problems that
  have both rates (its readers drop the problems without both kinds of solutions, so on their runs
  the two coincide);
- **pooled**: accepted correct solutions / correct solutions over all problems (and rejected /
  incorrect), every solution weighing the same: it leans towards problems with large pools.

``average`` is (TPR + TNR) / 2, the README's "Avg". Each value has a 95 % percentile bootstrap
interval over problems (the unit of the benchmark: 1,000 resamples of the problems, fixed seed).
``by_language`` repeats all three over each language's solutions (a problem counts where it has
solutions of that language). ``python2``: the Python 2 solutions' rates judged as Python 2 and, as
the published harness ran them, on Python 3, and the overall rates had every Python 2 solution run on
Python 3. The accumulation is a stream over the shards: its memory is per problem (and per test of
a problem with failures), never per solution.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
from pydantic import BaseModel, Field

from linteval_ray.reduce.intervals import bootstrap_ratio
from linteval_ray.schema import Status, Verdict
from linteval_ray.suite.pools import Label

PYTHON2 = "py2"
COLUMNS = ("problem", "label", "language", "judged_as", "status", "verdict", "accepted", "tests", "failed_tests",
           "as_python3", "error")
DEFINITIONS = {
    "tpr": "per problem: correct solutions accepted (passing every test) / correct solutions judged",
    "tnr": "per problem: incorrect solutions rejected / incorrect solutions judged",
    "macro": "mean of the per-problem rate over the problems that have it (the paper's; analyze_results.py "
             "'Total Average')",
    "intersection": "mean of the per-problem rate over the problems that have both TPR and TNR "
                    "(analyze_results.py 'Average (Intersection)')",
    "pooled": "accepted (rejected) solutions / solutions over every problem",
    "judged": "evaluated rows: a compile error, crash or limit is a rejection; invalid_input, invalid_problem "
              "and infra_error rows are left out (statuses)",
    "ci": "95 % percentile bootstrap over problems (1,000 resamples, seed 0)",
}


@dataclass
class Tally:
    """Correct judged / accepted, incorrect judged / rejected."""

    correct: int = 0
    accepted: int = 0
    incorrect: int = 0
    rejected: int = 0

    def add(self, label: str, accepted: bool) -> None:
        if label == Label.CORRECT:
            self.correct += 1
            self.accepted += accepted
        else:
            self.incorrect += 1
            self.rejected += not accepted


@dataclass
class ProblemTally:
    """One problem's counts: overall, by language, Python 2 judged on Python 3, failures per test."""

    overall: Tally = field(default_factory=Tally)
    by_language: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    py2_as_py3: Tally = field(default_factory=Tally)
    all_py2_as_py3: Tally = field(default_factory=Tally)  # every solution, Python 2 ones as run on Python 3
    tests: int = 0
    rejected_correct: Counter[int] = field(default_factory=Counter)  # test -> correct solutions it rejects
    rejected_incorrect: Counter[int] = field(default_factory=Counter)  # test -> incorrect solutions it rejects


class Rate(BaseModel):
    value: float | None = Field(description="None: no problem has it")
    ci: list[float] | None = None
    problems: int = Field(description="problems the value is over (pooled: problems with solutions)")


class Rates(BaseModel):
    tpr: Rate
    tnr: Rate
    average: float | None = Field(description="(TPR + TNR) / 2")


class Aggregate(BaseModel):
    macro: Rates
    intersection: Rates
    pooled: Rates
    correct: int = Field(description="correct solutions judged")
    accepted: int
    incorrect: int = Field(description="incorrect solutions judged")
    rejected: int


class ProblemRates(BaseModel):
    problem: str
    correct: int
    accepted: int
    tpr: float | None
    incorrect: int
    rejected: int
    tnr: float | None
    tests: int
    culprit_tests: dict[int, int] = Field(default_factory=dict, description="test -> correct solutions it rejects")
    catching_tests: dict[int, int] = Field(default_factory=dict,
                                           description="test -> incorrect solutions it rejects")


class Python2Comparison(BaseModel):
    """Python 2 solutions judged as Python 2 and, as the published harness did, on Python 3."""

    as_python2: Aggregate
    as_python3: Aggregate
    overall_if_python3: Aggregate = Field(description="every solution, the Python 2 ones judged on Python 3")


class SuiteMetrics(BaseModel):
    definitions: dict[str, str] = Field(default_factory=lambda: dict(DEFINITIONS))
    overall: Aggregate
    by_language: dict[str, Aggregate]
    python2: Python2Comparison | None = None
    dialects: dict[str, dict[str, int]] = Field(
        default_factory=dict, description="what compiled the judged solutions (cpp, cpp+gnu++11, ...) -> label -> n")
    statuses: dict[str, int]
    verdicts: dict[str, dict[str, int]] = Field(description="label -> verdict -> solutions")
    problems: list[ProblemRates]
    invalid_problems: dict[str, str] = Field(default_factory=dict, description="problem -> why it cannot judge")
    problems_without_solutions: int = Field(default=0, description="indexed problems no pool judged a solution of")
    stop_at_first_failure: bool = False


class Accumulator:
    """The per-problem counts of a stream of row tables (``COLUMNS``)."""

    def __init__(self) -> None:
        self.problems: dict[str, ProblemTally] = defaultdict(ProblemTally)
        self.statuses: Counter[str] = Counter()
        self.verdicts: dict[str, Counter[str]] = defaultdict(Counter)
        self.dialects: dict[str, Counter[str]] = defaultdict(Counter)
        self.invalid_problems: dict[str, str] = {}

    def add(self, table: pa.Table) -> None:
        for row in table.select(list(COLUMNS)).to_pylist():
            self._add(row)

    def _add(self, row: dict[str, Any]) -> None:
        self.statuses[row["status"]] += 1
        problem = row["problem"]
        if row["status"] == Status.INVALID_PROBLEM and problem is not None:
            self.invalid_problems.setdefault(problem, row["error"] or "")
        if row["status"] != Status.EVALUATED:
            return
        label, accepted, language = row["label"], bool(row["accepted"]), row["language"]
        tally = self.problems[problem]
        tally.overall.add(label, accepted)
        tally.by_language[language].add(label, accepted)
        tally.tests = max(tally.tests, row["tests"] or 0)
        self.verdicts[label][row["verdict"]] += 1
        self.dialects[row["judged_as"]][label] += 1
        as_py3 = row["as_python3"]
        if language == PYTHON2 and as_py3 is not None:
            tally.py2_as_py3.add(label, as_py3 == Verdict.PASSED)
            tally.all_py2_as_py3.add(label, as_py3 == Verdict.PASSED)
        else:
            tally.all_py2_as_py3.add(label, accepted)
        rejected = tally.rejected_correct if label == Label.CORRECT else tally.rejected_incorrect
        for test in row["failed_tests"] or ():
            rejected[test] += 1

    def metrics(self, problem_names: Iterable[str] = (), *, stop_at_first_failure: bool = False) -> SuiteMetrics:
        tallies = self.problems
        languages = sorted({language for tally in tallies.values() for language in tally.by_language})
        python2 = [tally for tally in tallies.values() if tally.py2_as_py3.correct or tally.py2_as_py3.incorrect]
        return SuiteMetrics(
            overall=aggregate([tally.overall for tally in tallies.values()]),
            by_language={language: aggregate([tally.by_language[language] for tally in tallies.values()
                                              if language in tally.by_language]) for language in languages},
            python2=Python2Comparison(
                as_python2=aggregate([tally.by_language[PYTHON2] for tally in python2]),
                as_python3=aggregate([tally.py2_as_py3 for tally in python2]),
                overall_if_python3=aggregate([tally.all_py2_as_py3 for tally in tallies.values()]),
            ) if python2 else None,
            dialects={name: dict(sorted(counts.items())) for name, counts in sorted(self.dialects.items())},
            statuses=dict(sorted(self.statuses.items())),
            verdicts={label: dict(sorted(counts.items())) for label, counts in sorted(self.verdicts.items())},
            problems=[problem_rates(name, tally) for name, tally in sorted(tallies.items())],
            invalid_problems=dict(sorted(self.invalid_problems.items())),
            problems_without_solutions=len(set(problem_names) - set(tallies) - set(self.invalid_problems)),
            stop_at_first_failure=stop_at_first_failure,
        )


def problem_rates(name: str, tally: ProblemTally) -> ProblemRates:
    t = tally.overall
    return ProblemRates(problem=name, correct=t.correct, accepted=t.accepted, tpr=_rate(t.accepted, t.correct),
                        incorrect=t.incorrect, rejected=t.rejected, tnr=_rate(t.rejected, t.incorrect),
                        tests=tally.tests, culprit_tests=dict(sorted(tally.rejected_correct.items())),
                        catching_tests=dict(sorted(tally.rejected_incorrect.items())))


def aggregate(tallies: list[Tally]) -> Aggregate:
    """macro, intersection and pooled TPR / TNR of the problems' ``tallies`` (see the module docstring)."""
    tprs = [(t.accepted / t.correct, t) for t in tallies if t.correct]
    tnrs = [(t.rejected / t.incorrect, t) for t in tallies if t.incorrect]
    both = [t for t in tallies if t.correct and t.incorrect]
    return Aggregate(
        macro=_rates(_mean([rate for rate, _ in tprs]), _mean([rate for rate, _ in tnrs])),
        intersection=_rates(_mean([t.accepted / t.correct for t in both]),
                            _mean([t.rejected / t.incorrect for t in both])),
        pooled=_rates(_pooled([t.accepted for _, t in tprs], [t.correct for _, t in tprs]),
                      _pooled([t.rejected for _, t in tnrs], [t.incorrect for _, t in tnrs])),
        correct=sum(t.correct for t in tallies), accepted=sum(t.accepted for t in tallies),
        incorrect=sum(t.incorrect for t in tallies), rejected=sum(t.rejected for t in tallies),
    )


def _mean(rates: list[float]) -> Rate:
    """The mean of per-problem rates, with its bootstrap interval over the problems."""
    if not rates:
        return Rate(value=None, problems=0)
    return Rate(value=sum(rates) / len(rates), ci=bootstrap_ratio(rates, [1.0] * len(rates)), problems=len(rates))


def _pooled(numerators: list[int], denominators: list[int]) -> Rate:
    """Σ numerator / Σ denominator over problems, with its bootstrap interval over the problems."""
    total = sum(denominators)
    if not total:
        return Rate(value=None, problems=0)
    return Rate(value=sum(numerators) / total, ci=bootstrap_ratio(numerators, denominators),
                problems=len(denominators))


def _rates(tpr: Rate, tnr: Rate) -> Rates:
    average = None if tpr.value is None or tnr.value is None else (tpr.value + tnr.value) / 2
    return Rates(tpr=tpr, tnr=tnr, average=average)


def _rate(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None
