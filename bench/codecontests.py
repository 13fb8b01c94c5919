"""CodeContests-O judging: solutions per CPU-second on a 40-test C++ problem, the engine (warm) beside
a harness that does what the published one does, in one run.

    PYTHONPATH=$PWD python -m bench.codecontests [--solutions 12] [--harness-solutions 2] [--json out.json]

The problem: 40 given tests (sums of up to 20,000 numbers: the programs' own work is small, so the
judge's is what is measured), no checker (the strict profile's token comparison decides), limits by
the default policy. ``--solutions`` distinct correct C++ programs (a comment apart: every one compiles).

1. **engine, warm**: the worker's state as a run keeps it (its box server, the node's precompiled
   headers, the comparison compiled and verified, the tests in the content cache: the first
   solution, not counted, warms them), then each solution judged as a row is
   (``tasks/codecontests_o/judge.py`` ``judge_solution``: compiled once with -O2, each test in a box
   of its own, the outputs compared in one box). Measured per phase: compile, tests (runs), checks.
2. **harness**: what the published harness does per test (CodeContests-O ``core/validator.py`` through
   SandboxFusion ``runners/major.py``): a fresh folder, ``g++ -std=c++17 sol.cpp -o test -lpthread``
   (no -O2, no precompiled header), run the program on the test's input, compare in Python
   (``compat.harness_accepts``). Compiles and runs in the same sandbox as the engine's: the
   comparison is of the work, not of the isolation.

CPU, not wall time (the machine is shared): this process, its reaped children and its live ones (the
box server and its boxes: ``bench/cpu.py``). "The programs' own" is the CPU the kernel counted for
the solutions' runs on their tests (``TestRecord.cpu_s``); beyond it is the judge's.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
from pathlib import Path
from typing import Any

from bench.cpu import tree_cpu_s
from linteval_ray.config import ValidationConfig, load_config
from linteval_ray.pipeline.dataset import resolved
from linteval_ray.pipeline.inputs import load_local_inputs
from linteval_ray.schema import Verdict
from linteval_ray.tasks.codecontests_o.compat import harness_accepts
from linteval_ray.tasks.codecontests_o.judge import GivenChecks, Problem, Problems
from linteval_ray.tasks.codecontests_o.record import CodeContestsRecord
from linteval_ray.validate.engine import Validator
from linteval_ray.validate.judge.compile import compile_program
from linteval_ray.validate.judge.run import judged_tests
from linteval_ray.validate.sandbox.base import RunLimits

TESTS = 40
SOLUTION = """#include <bits/stdc++.h>
using namespace std;
// variant VARIANT
int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    long long total = 0;
    for (int i = 0; i < n; i++) {
        long long x;
        scanf("%lld", &x);
        total += x;
    }
    printf("%lld\\n", total);
}
"""


def problem_row() -> dict[str, Any]:
    rng = random.Random(38)
    tests = []
    for index in range(TESTS):
        values = [rng.randint(-10**9, 10**9) for _ in range(rng.choice((1, 10, 100, 1000, 20000)) + index)]
        tests.append({"input": {"stdin": f"{len(values)}\n{' '.join(map(str, values))}\n"},
                      "output": {"stdout": f"{sum(values)}\n"}})
    return {"name": "Sum of Many", "description": "Print the sum of n numbers.", "corner_cases": tests, "checker": ""}


def record_of(folder: Path) -> CodeContestsRecord:
    split = folder / "split.jsonl"
    split.write_text(json.dumps(problem_row()) + "\n")
    overrides = [f"dataset.source={json.dumps(str(split))}", "generation.replay.predictions=x"]
    config = resolved(load_config(None, overrides))
    return CodeContestsRecord.model_validate_json(load_local_inputs(config).rows[0]["record_json"])


class MeteredChecks(GivenChecks):
    """``GivenChecks`` with the CPU of its comparisons counted."""

    cpu_s = 0.0

    def _judge(self, pending: list[Any]) -> None:
        started = tree_cpu_s()
        super()._judge(pending)
        MeteredChecks.cpu_s += tree_cpu_s() - started


def engine(problem: Problem, variants: list[str]) -> dict[str, float]:
    """CPU-s per solution by phase (the first variant warms the worker and is not counted)."""
    phases = {"compile": 0.0, "runs": 0.0, "checks": 0.0, "programs_own": 0.0}
    for index, code in enumerate(variants):
        start = tree_cpu_s()
        checks_before = MeteredChecks.cpu_s
        with tempfile.TemporaryDirectory(dir=problem.ctx.scratch) as tmp:
            compiled = compile_program("cpp", code, problem.ctx, Path(tmp) / "prog")
            assert compiled.program is not None, compiled.error
            compiled_at = tree_cpu_s()
            result = judged_tests(compiled.program, problem.prepared, problem.ctx, MeteredChecks(problem, False))
        done = tree_cpu_s()
        assert result.verdict == Verdict.PASSED and result.tests_passed == TESTS, result.detail
        if index == 0:
            continue
        checks = MeteredChecks.cpu_s - checks_before
        phases["compile"] += compiled_at - start
        phases["checks"] += checks
        phases["runs"] += done - compiled_at - checks
        phases["programs_own"] += sum(test.cpu_s for test in result.tests)
    counted = len(variants) - 1
    return {phase: value / counted for phase, value in phases.items()}


def harness(problem: Problem, variants: list[str]) -> dict[str, float]:
    """CPU-s per solution of the published harness's way: compiled again for every test."""
    ctx, prepared = problem.ctx, problem.prepared
    limits = RunLimits(wall_s=20.0, memory_mb=2048, output_bytes=64 << 20, file_size_mb=256, tmp_mb=512)
    start = tree_cpu_s()
    own = 0.0
    for code in variants:
        for name in prepared.tests.names:
            with tempfile.TemporaryDirectory(dir=ctx.scratch) as tmp:
                folder = Path(tmp)
                (folder / "sol.cpp").write_text(code)
                built = ctx.run_in(folder, [ctx.tool_paths()["gxx"], "-std=c++17", "sol.cpp", "-o", "test",
                                            "-lpthread"], limits=limits)
                assert built.ok, built.stderr[-2000:]
                ran = ctx.run_in(folder, ["./test"], limits=limits, stdin=prepared.tests.input_path(name))
            expected = prepared.reference.answer_path(name).read_text()
            assert harness_accepts(expected, ran.stdout.decode()), name
            own += ran.cpu_s
    return {"total": (tree_cpu_s() - start) / len(variants), "programs_own": own / len(variants)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--solutions", type=int, default=12, help="engine: solutions judged (+1 to warm up)")
    parser.add_argument("--harness-solutions", type=int, default=2, help="harness: solutions judged")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    worker = Validator(ValidationConfig())
    try:
        problem = Problems(worker.judge).get(record_of(Path(tempfile.mkdtemp(prefix="bench-cco-"))))
        variants = [SOLUTION.replace("VARIANT", str(i)) for i in range(args.solutions + 1)]
        ours = engine(problem, variants)
        theirs = harness(problem, variants[:args.harness_solutions])
    finally:
        worker.close()
    ours_total = sum(v for k, v in ours.items() if k != "programs_own")
    figures = {
        "tests": TESTS,
        "engine_cpu_s_per_solution": {k: round(v, 4) for k, v in ours.items()} | {"total": round(ours_total, 4)},
        "harness_cpu_s_per_solution": {k: round(v, 4) for k, v in theirs.items()},
        "engine_solutions_per_cpu_s": round(1 / ours_total, 3),
        "harness_solutions_per_cpu_s": round(1 / theirs["total"], 4),
        "speedup": round(theirs["total"] / ours_total, 1),
        "engine_solutions_per_cpu_s_beyond_programs": round(1 / (ours_total - ours["programs_own"]), 3),
        "engine_ms_per_test_run": round(1000 * statistics.fmean([ours["runs"] / TESTS]), 2),
    }
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
