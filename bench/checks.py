"""CPU-seconds of a revision's tests: its outputs checked a batch per box vs one box per check.

For every bundled sample (or ``--sample``): its problem is prepared (cached: run once to warm
the cache), its reference revision compiled once, then its tests run ``--repeat`` times in each
mode, alternating: ``batched`` (``check.check_outputs``, the product's path) and ``per_box`` (each
output through ``check.check_output``, a box of its own: the path before batching). CPU = this
process and its reaped children (every sandboxed run: the program, its checkers, bwrap), per
revision, median of the repeats. Verdicts and passed-test counts of both modes are printed side by
side (they must agree), then the mean per sample, overall and per language.

    PYTHONPATH=$PWD python -m bench.checks [--repeat 3] [--sample lr01_cpp_0 ...]
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from collections.abc import Callable, Sequence

from bench.cpu import tree_cpu_s
from bench.judging import bundled_samples, compile_reference, judge_context, mean_by_language, repeat_and_samples
from linteval_ray.validate.judge import JudgeContext, PreparedProblem, prepare_problem
from linteval_ray.validate.judge import run as judge_run
from linteval_ray.validate.judge.check import Checked, Output, check_output, check_outputs
from linteval_ray.validate.judge.run import decide_verdict, run_tests


def per_box(outputs: Sequence[Output], problem: PreparedProblem, ctx: JudgeContext) -> list[Checked]:
    return [check_output(name, output, problem, ctx) for name, output in outputs]


MODES: dict[str, Callable[[Sequence[Output], PreparedProblem, JudgeContext], list[Checked]]] = {
    "batched": check_outputs, "per_box": per_box}



def main() -> None:
    args = repeat_and_samples(__doc__.split("\n")[0], "")
    ctx = judge_context("bench-checks-")
    totals: dict[str, dict[str, list[float]]] = {mode: defaultdict(list) for mode in MODES}
    try:
        for record in bundled_samples(args.sample):
            problem = prepare_problem(record, ctx)
            compiled = compile_reference(record, ctx)
            row: dict[str, object] = {"sample": record.sample_id, "tests": len(problem.reference.tests)}
            if compiled.program is None:  # no test runs: nothing to compare
                print(json.dumps({**row, "verdict": "compile_error"}), flush=True)
                continue
            cpu: dict[str, list[float]] = {mode: [] for mode in MODES}
            outcome: dict[str, tuple[str, int]] = {}
            for _ in range(args.repeat):
                for mode, check in MODES.items():
                    judge_run.check_outputs = check  # type: ignore[assignment]  # the mode's path, nothing else
                    before = tree_cpu_s()
                    records = run_tests(compiled.program, problem, ctx)
                    cpu[mode].append(tree_cpu_s() - before)
                    passed = sum(r.verdict is not None and r.verdict.value == "passed" for r in records)
                    outcome[mode] = (decide_verdict(records)[0].value, passed)
            for mode in MODES:
                median = statistics.median(cpu[mode])
                row[mode] = {"cpu_s": round(median, 3), "verdict": outcome[mode][0], "passed": outcome[mode][1]}
                totals[mode][record.language].append(median)
            print(json.dumps(row), flush=True)
    finally:
        judge_run.check_outputs = check_outputs
        ctx.sandbox.close()
    summary = mean_by_language(totals)
    print(json.dumps({"samples": sum(len(vs) for vs in totals["batched"].values()),
                      "mean_tests_cpu_s_per_sample": summary}))


if __name__ == "__main__":
    main()
