"""Sizing a test-suite quality run on a cluster (``linteval-ray plan --suite-solutions N``).

A suite run is CPU only: every solution is compiled once and run on each test of its problem, a box
per test. Its cost is

    CPU-s = solutions x Σ_language mix x (compile + tests per problem x per test) x (2 for Python 2:
            judged on Python 2 and on Python 3) + problems x workers per problem x problem set-up

and its wall time on ``nodes`` nodes of ``cpus_per_node`` cores the start-up plus CPU-s / (cores x
utilisation); given a wall time instead, the nodes it needs. The figures are measured
(``bench/suite_harness.py``, bench/README.md) or stated assumptions; each says which.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field

PYTHON2 = "py2"


class SuiteFigures(BaseModel):
    model_config = ConfigDict(extra="forbid")

    compile_cpu_s: dict[str, float] = Field(description="CPU-s to compile (or syntax-check) a solution, by language")
    test_cpu_s: dict[str, float] = Field(description="CPU-s per test of a solution (its box, its run, the check)")
    tests_per_problem: float = Field(gt=0)
    language_mix: dict[str, float] = Field(description="share of the pools' solutions per language")
    problem_setup_cpu_s: float = Field(ge=0, description="a worker's set-up of a problem: its checker compiled and "
                                       "verified on the expected answers, its tests fetched")
    workers_per_problem: float = Field(gt=0, description="workers that set a problem up (its units spread)")
    python2_runs: float = Field(ge=1, description="runs of a Python 2 solution (2: also on Python 3)")
    core_utilisation: float = Field(gt=0, le=1)
    startup_s: float = Field(ge=0, description="job start, the test source's index, the reduction")
    sources: dict[str, str] = Field(default_factory=dict)

    def cpu_s_per_solution(self) -> float:
        total = sum(self.language_mix.values())
        return sum(share / total * (self.compile_cpu_s[lang] + self.tests_per_problem * self.test_cpu_s[lang])
                   * (self.python2_runs if lang == PYTHON2 else 1.0) for lang, share in self.language_mix.items())


def default_figures() -> SuiteFigures:
    return SuiteFigures(
        compile_cpu_s={"cpp": 0.38, "py3": 0.015, "py2": 0.015, "java": 0.36},
        test_cpu_s={"cpp": 0.0071, "py3": 0.019, "py2": 0.019, "java": 0.063},
        tests_per_problem=40.19,
        language_mix={"cpp": 0.55, "py3": 0.15, "py2": 0.15, "java": 0.15},
        problem_setup_cpu_s=4.0,
        workers_per_problem=4.0,
        python2_runs=2.0,
        core_utilisation=0.85,
        startup_s=1800.0,
        sources={
            "compile_cpu_s, test_cpu_s": "measured 2026-12-06 by bench/suite_harness.py on 20 real CodeContests "
            "problems (SandboxFusion's sample, 35-331 tests) and their 27 solutions, warm worker, CPU-s of the process "
            "tree: per test = (solution - compile) / its tests, the programs' own CPU on those tests included (C++ "
            "1.6 of 7.1 ms, Python 13.5 of 19 ms, Java 57 of 63 ms: a JVM's start); Python 2 as Python 3 "
            "(bench/README.md)",
            "tests_per_problem": "the CodeContests-O card: 40.19 tests per problem",
            "language_mix": "ASSUMPTION: deepmind/code_contests pools, C++ most; Python 2 and 3 and Java the rest",
            "problem_setup_cpu_s": "measured: a testlib checker at -Og (~3 CPU-s) and its check on 40 expected "
            "answers; a problem without checker compiles the token comparison once per node",
            "workers_per_problem": "ASSUMPTION: ~900 solutions per problem in units of 256",
            "core_utilisation": "ASSUMPTION: actors idle between units and while shards are written",
            "startup_s": "ASSUMPTION: job start, the test split's index (its corner cases read once), reduction",
        },
    )


class SuiteProjection(BaseModel):
    solutions: int
    problems: int
    cpus_per_node: int
    nodes: int
    cpu_s_per_solution: float
    cpu_hours: float
    wall_s: float
    figures: SuiteFigures


def plan_suite(solutions: int, problems: int, cpus_per_node: int, *, nodes: int | None = None,
               wall_hours: float | None = None, figures: SuiteFigures | None = None) -> SuiteProjection:
    """The run's CPU-hours and its wall time on ``nodes`` (or the nodes that finish in ``wall_hours``)."""
    if solutions < 1 or problems < 1 or cpus_per_node < 1 or (nodes is None) == (wall_hours is None):
        raise ValueError("need solutions, problems and cpus per node >= 1, and one of nodes or a wall time")
    fig = figures or default_figures()
    cpu_s = solutions * fig.cpu_s_per_solution() + problems * fig.workers_per_problem * fig.problem_setup_cpu_s
    rate = cpus_per_node * fig.core_utilisation  # CPU-s per second per node
    if nodes is None:
        assert wall_hours is not None
        budget = wall_hours * 3600 - fig.startup_s
        if budget <= 0:
            raise ValueError(f"{wall_hours} h is less than the start-up ({fig.startup_s / 3600:.1f} h)")
        nodes = max(1, math.ceil(cpu_s / (budget * rate)))
    return SuiteProjection(solutions=solutions, problems=problems, cpus_per_node=cpus_per_node, nodes=nodes,
                           cpu_s_per_solution=fig.cpu_s_per_solution(), cpu_hours=cpu_s / 3600,
                           wall_s=fig.startup_s + cpu_s / (nodes * rate), figures=fig)


def describe(p: SuiteProjection) -> str:
    hours = p.wall_s / 3600
    return "\n".join([
        f"{p.solutions} solutions over {p.problems} problems on {p.nodes} nodes x {p.cpus_per_node} cores",
        f"  judging cost        {p.cpu_s_per_solution:.2f} CPU-s per solution (language mix; Python 2 twice)",
        f"  CPU                 {p.cpu_hours:,.0f} CPU-hours",
        f"  projected wall time {hours:.1f} h",
        "figures:",
        *(f"  {name}: {source}" for name, source in p.figures.sources.items()),
    ])
