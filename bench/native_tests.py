"""CPU-seconds of a C++ or Python revision's tests: a box per test vs one box per revision.

For every bundled C++ and Python sample (or ``--sample``): its problem is prepared (cached: run
once to warm the cache), its reference revision compiled once, then its tests judged
(``run.run_tests``: runs, checker, time-limit stop) ``--repeat`` times in each mode, alternating
(``validation.native_tests``: ``fresh_box``, the reference path, and ``one_box``). Tests the
runner hands back to a box of their own count as they ran. CPU = this process and its reaped
children (every sandboxed run: the program, the runner, its checker, bwrap), per revision, median
of the repeats. Verdicts and per-test verdicts of both modes are compared (they must agree).

    PYTHONPATH=$PWD python -m bench.native_tests [--repeat 3] [--sample lr01_cpp_0 ...]
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict

from bench.cpu import tree_cpu_s
from bench.judging import bundled_samples, compile_reference, judge_context, mean_by_language, repeat_and_samples
from linteval_ray.config import NativeTests
from linteval_ray.validate.judge import prepare_problem
from linteval_ray.validate.judge.run import decide_verdict, run_tests

MODES: tuple[NativeTests, ...] = ("fresh_box", "one_box")


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
            cpu: dict[str, list[float]] = {mode: [] for mode in MODES}
            verdicts: dict[str, tuple[str, list[object]]] = {}
            for _ in range(args.repeat):
                for mode in MODES:
                    ctx.native_tests = mode
                    before = tree_cpu_s()
                    records = run_tests(compiled.program, problem, ctx)
                    cpu[mode].append(tree_cpu_s() - before)
                    verdicts[mode] = (decide_verdict(records)[0].value, [r.verdict for r in records])
            row["verdict"] = verdicts["fresh_box"][0]
            row["same_verdicts"] = verdicts["fresh_box"] == verdicts["one_box"]
            for mode in MODES:
                median = statistics.median(cpu[mode])
                row[mode] = round(median, 3)
                totals[mode][record.language].append(median)
            print(json.dumps(row), flush=True)
    finally:
        ctx.sandbox.close()
    print(json.dumps({"samples": sum(len(vs) for vs in totals["fresh_box"].values()),
                      "mean_tests_cpu_s_per_sample": mean_by_language(totals)}))


if __name__ == "__main__":
    main()
