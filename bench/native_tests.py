"""CPU-seconds of running a native revision's tests: a box per test (the product) vs all in one box.

What a one-box runner for C++ and Python tests could save (issue 17; designed in
``bench/README.md``, not built). For every bundled C++ and Python sample (or ``--sample``): its
problem is prepared (cached: run once to warm the cache), its reference revision compiled once,
then, when every test's run ends normally (a program that fails or times out is skipped:
``one_box`` has no time-limit stop), its tests are run ``--repeat`` times each way, alternating:

- ``box_per_test``: ``run.run_one_test`` on every test, the product's path (no checker);
- ``one_box``: one box whose shell runs the same command line on every test, one after the
  other, under the same limits (the largest test's), its outputs written to the box's folder.

Only the runs: no checker, no time-limit stop, no per-test limits or verdicts in ``one_box``, so
this is the box's share of ``tests``, an upper bound of what a runner would save. CPU = this
process and its reaped children, per revision, median of the repeats. The outputs of both ways
are compared by their sha256 (they must agree: the same program on the same inputs).

    PYTHONPATH=$PWD python -m bench.native_tests [--repeat 3] [--sample lr01_cpp_0 ...]
"""

from __future__ import annotations

import hashlib
import json
import shlex
import statistics
from collections import defaultdict

from bench.cpu import tree_cpu_s
from bench.judging import bundled_samples, compile_reference, judge_context, mean_by_language, repeat_and_samples
from linteval_ray.validate.judge import JudgeContext, PreparedProblem, prepare_problem
from linteval_ray.validate.judge.compile import CompiledProgram
from linteval_ray.validate.judge.run import run_one_test, time_limit_s, wall_cap_s
from linteval_ray.validate.sandbox.base import Mount, RunLimits

TESTS_DIR = "/tests"


def box_per_test(program: CompiledProgram, problem: PreparedProblem, ctx: JudgeContext) -> list[str]:
    """The sha256 of each test's output (None: the run did not end normally)."""
    digests = []
    for test in problem.reference.tests:
        _, output = run_one_test(program, test, time_limit_s(test, ctx), problem, ctx)
        digests.append(hashlib.sha256(output).hexdigest() if output is not None else "failed")
    return digests


def one_box(program: CompiledProgram, problem: PreparedProblem, ctx: JudgeContext) -> list[str]:
    """The sha256 of each test's output, from ``sha256sum`` in the box."""
    tests = problem.reference.tests
    argv = shlex.join(program.argv(ctx.limits.memory_mb))
    script = "; ".join(f"{argv} < {TESTS_DIR}/{t.name}.in > out{k}" for k, t in enumerate(tests))
    limit = max(time_limit_s(t, ctx) for t in tests)
    limits = RunLimits(wall_s=wall_cap_s(limit) * len(tests), cpu_s=limit,
                       memory_mb=program.address_space_mb(ctx.limits.memory_mb),
                       file_size_mb=ctx.limits.output_mb)
    result = ctx.run(["/bin/sh", "-c", f"{script}; sha256sum out*"], limits=limits,
                     mounts=[program.mount(), Mount(src=problem.tests.directory, dst=TESTS_DIR)], env=program.env())
    digests = dict(line.split()[::-1] for line in result.stdout.decode().splitlines())
    return [digests.get(f"out{k}", "missing") for k in range(len(tests))]


MODES = {"box_per_test": box_per_test, "one_box": one_box}


def main() -> None:
    args = repeat_and_samples(__doc__.split("\n")[0], "C++ and Python ")
    ctx = judge_context("bench-native-")
    totals: dict[str, dict[str, list[float]]] = {mode: defaultdict(list) for mode in MODES}
    try:
        for record in bundled_samples(args.sample, languages=("cpp", "py3")):
            problem = prepare_problem(record, ctx)
            compiled = compile_reference(record, ctx)
            row: dict[str, object] = {"sample": record.sample_id, "tests": len(problem.reference.tests)}
            if compiled.program is None or not problem.reference.tests:
                print(json.dumps({**row, "skipped": "no program or no tests"}), flush=True)
                continue
            if "failed" in box_per_test(compiled.program, problem, ctx):
                print(json.dumps({**row, "skipped": "a run did not end normally (one_box has no stop)"}), flush=True)
                continue
            cpu: dict[str, list[float]] = {mode: [] for mode in MODES}
            outputs: dict[str, list[str]] = {}
            for _ in range(args.repeat):
                for mode, run in MODES.items():
                    before = tree_cpu_s()
                    outputs[mode] = run(compiled.program, problem, ctx)
                    cpu[mode].append(tree_cpu_s() - before)
            row["same_outputs"] = outputs["box_per_test"] == outputs["one_box"]
            row["saved_ms_per_test"] = round(1000 * (statistics.median(cpu["box_per_test"])
                                                     - statistics.median(cpu["one_box"])) / len(outputs["one_box"]), 1)
            for mode in MODES:
                median = statistics.median(cpu[mode])
                row[mode] = round(median, 3)
                totals[mode][record.language].append(median)
            print(json.dumps(row), flush=True)
    finally:
        ctx.sandbox.close()
    summary = mean_by_language(totals)
    print(json.dumps({"samples": sum(len(vs) for vs in totals["box_per_test"].values()),
                      "mean_runs_cpu_s_per_sample": summary}))


if __name__ == "__main__":
    main()
