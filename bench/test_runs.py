"""CPU of a revision's tests, each in a box of its own: boxes the box server clones vs bubblewrap's.

Side by side in one run, alternating the builders (the machine is shared and noisy):

1. **per-test overhead**: a program that does nothing (C++ ``int main() {}``; Java an empty ``main``:
   its JVM's start is part of every Java test) run ``--runs`` times in each builder's boxes, as a test
   runs (no work dir, a memory cgroup, the test's limits). CPU per run = this process, the box server
   and every box, reaped or alive (``bench/cpu.py``), over the runs.
2. **tests per bundled sample** (``--samples``): each bundled sample's reference revision compiled once,
   then its tests judged (``run.run_tests``: runs, checker batches, the time-limit stop) ``--repeat``
   times per builder; the median per sample, the mean per language. Verdicts of both builders are
   compared (they must agree).

    PYTHONPATH=$PWD python -m bench.test_runs [--runs 200] [--samples] [--repeat 3] [--sample ID ...]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from bench.cpu import tree_cpu_s
from bench.judging import bundled_samples, compile_reference, judge_context, mean_by_language
from linteval_ray.config import TestLimits
from linteval_ray.validate.judge import CompiledProgram, JudgeContext, compile_program, prepare_problem
from linteval_ray.validate.judge.limits import test_run_limits
from linteval_ray.validate.judge.run import decide_verdict, run_tests
from linteval_ray.validate.sandbox import RunLimits

NOTHING = {"cpp": "int main() { return 0; }\n",
           "java": "public class Main { public static void main(String[] args) { } }\n",
           "py3": "pass\n"}


def builders(ctx: JudgeContext) -> dict[str, JudgeContext]:
    """The context in the box server's boxes and in bubblewrap's."""
    if not ctx.has_reference:
        raise SystemExit("the box server needs root and bubblewrap beside it: nothing to compare here")
    return {"server": ctx, "bwrap": ctx.reference()}


def per_run_cpu_s(run: Callable[[], object], runs: int) -> float:
    before = tree_cpu_s()
    for _ in range(runs):
        run()
    return (tree_cpu_s() - before) / runs


def overhead(ctx: JudgeContext, runs: int) -> dict[str, dict[str, float]]:
    """CPU-ms per run of a program that does nothing, per language and builder."""
    figures: dict[str, dict[str, float]] = defaultdict(dict)
    for language, code in NOTHING.items():
        compiled = compile_program(language, code, ctx, Path(tempfile.mkdtemp(dir=ctx.scratch)) / "prog")
        program = compiled.program
        assert program is not None, compiled.error
        limits = test_run_limits(program, TestLimits().time_floor_s, ctx)
        samples: dict[str, list[float]] = defaultdict(list)
        for _ in range(3):  # alternating: each builder sees the same load
            for name, view in builders(ctx).items():
                samples[name].append(per_run_cpu_s(lambda v=view, p=program, lim=limits: _run(v, p, lim), runs // 3))
        for name, values in samples.items():
            figures[language][name] = round(1000 * statistics.median(values), 2)
        print(json.dumps({"overhead_cpu_ms_per_test": {language: figures[language]}}), flush=True)
    return figures


def _run(ctx: JudgeContext, program: CompiledProgram, limits: RunLimits) -> None:
    result = ctx.run(program.argv(ctx.limits.memory_mb), limits=limits, mounts=[program.mount()], env=program.env())
    assert result.exit_code == 0, result.stderr


def samples(ctx: JudgeContext, only: list[str] | None, repeat: int) -> dict[str, dict[str, float]]:
    totals: dict[str, dict[str, list[float]]] = {name: defaultdict(list) for name in ("server", "bwrap")}
    for record in bundled_samples(only):
        problem = prepare_problem(record, ctx)
        compiled = compile_reference(record, ctx)
        row: dict[str, object] = {"sample": record.sample_id, "tests": len(problem.reference.tests)}
        if compiled.program is None or not problem.reference.tests:
            print(json.dumps({**row, "skipped": "no program or no tests"}), flush=True)
            continue
        cpu: dict[str, list[float]] = defaultdict(list)
        verdicts: dict[str, tuple[str, list[object]]] = {}
        for _ in range(repeat):
            for name, view in builders(ctx).items():
                before = tree_cpu_s()
                records = run_tests(compiled.program, problem, view)
                cpu[name].append(tree_cpu_s() - before)
                verdicts[name] = (decide_verdict(records)[0].value, [r.verdict for r in records])
        row["verdict"] = verdicts["server"][0]
        row["same_verdicts"] = verdicts["server"] == verdicts["bwrap"]
        for name, values in cpu.items():
            row[name] = round(statistics.median(values), 3)
            totals[name][record.language].append(statistics.median(values))
        print(json.dumps(row), flush=True)
    return mean_by_language(totals)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=150, help="runs per language and builder for the overhead")
    parser.add_argument("--samples", action="store_true", help="also the tests of every bundled sample")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sample", action="append", help="a sample id (default: every bundled sample)")
    args = parser.parse_args()
    ctx = judge_context("bench-test-runs-")
    try:
        summary: dict[str, object] = {"overhead_cpu_ms_per_test": overhead(ctx, args.runs)}
        if args.samples or args.sample:
            summary["tests_cpu_s_per_sample"] = samples(ctx, args.sample, args.repeat)
    finally:
        ctx.sandbox.close()
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
