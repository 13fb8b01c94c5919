"""CPU-seconds of a Java revision's tests: a fresh JVM per test vs one JVM per revision.

For every bundled Java sample: its problem is prepared (cached: run once to warm the cache),
its revision compiled once, then its tests run ``--repeat`` times in each mode
(``validation.java_tests``: ``fresh_jvm`` and ``one_jvm``). CPU = this process and its reaped
children (every sandboxed run: the program, its checker, bwrap), per revision, median of the
repeats; tests whose runs went back to fresh JVMs are counted as they ran. Verdicts and
passed-test counts of both modes are printed side by side (they must agree).

    PYTHONPATH=$PWD python -m bench.java_tests [--repeat 3] [--sample lr01_java_0 ...]
"""

from __future__ import annotations

import json
import statistics
import tempfile
from pathlib import Path

from bench.cpu import tree_cpu_s
from bench.judging import bundled_samples, judge_context, repeat_and_samples
from bench.naive import reference_revision
from linteval_ray.config import JavaTests
from linteval_ray.validate.judge import compile_program, prepare_problem
from linteval_ray.validate.judge.run import decide_verdict, run_tests

MODES: tuple[JavaTests, ...] = ("fresh_jvm", "one_jvm")



def main() -> None:
    args = repeat_and_samples(__doc__.split("\n")[0], "Java ")
    ctx = judge_context("bench-java-")
    sandbox, scratch = ctx.sandbox, ctx.scratch
    totals: dict[str, list[float]] = {mode: [] for mode in MODES}
    try:
        for record in bundled_samples(args.sample, ("java",)):
            problem = prepare_problem(record, ctx)
            compiled = compile_program("java", reference_revision(record) or "", ctx,
                                       Path(tempfile.mkdtemp(dir=scratch)) / "prog", prebuilt=False)
            row: dict[str, object] = {"sample": record.sample_id, "tests": len(problem.reference.tests)}
            if compiled.program is None:  # no test runs: nothing to compare
                print(json.dumps({**row, "verdict": "compile_error"}), flush=True)
                continue
            for mode in MODES:
                ctx.java_tests = mode
                cpu = []
                for _ in range(args.repeat):
                    before = tree_cpu_s()
                    records = run_tests(compiled.program, problem, ctx)
                    cpu.append(tree_cpu_s() - before)
                verdict, _ = decide_verdict(records)
                passed = sum(r.verdict is not None and r.verdict.value == "passed" for r in records)
                row[mode] = {"cpu_s": round(statistics.median(cpu), 3), "verdict": verdict.value, "passed": passed}
                totals[mode].append(statistics.median(cpu))
            print(json.dumps(row), flush=True)
    finally:
        sandbox.close()
    count = len(totals["fresh_jvm"])
    summary = {mode: round(sum(v) / max(count, 1), 3) for mode, v in totals.items()}
    print(json.dumps({"samples": count, "mean_cpu_s_per_sample": summary}))


if __name__ == "__main__":
    main()
