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

import argparse
import json
import statistics
import tempfile
from pathlib import Path

from bench.cpu import tree_cpu_s
from bench.naive import reference_revision
from linteval_ray.config import JavaTests
from linteval_ray.load.presets import bundled_path
from linteval_ray.schema.record import LintEvalRecord
from linteval_ray.toolchain import Toolchain
from linteval_ray.validate.cache import ContentCache, default_cache_dir
from linteval_ray.validate.judge import JudgeContext, compile_program, prepare_problem
from linteval_ray.validate.judge.run import decide_verdict, run_tests
from linteval_ray.validate.sandbox import make_sandbox

MODES: tuple[JavaTests, ...] = ("fresh_jvm", "one_jvm")


def java_samples(only: list[str] | None) -> list[LintEvalRecord]:
    records = [LintEvalRecord.model_validate_json(line) for line in bundled_path().read_text().splitlines()]
    return [r for r in records if r.language == "java" and (not only or r.sample_id in only)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sample", action="append", help="a sample id (default: every bundled Java sample)")
    args = parser.parse_args()
    toolchain = Toolchain.discover()
    sandbox = make_sandbox("bwrap", toolchain=toolchain)
    scratch = Path(tempfile.mkdtemp(prefix="bench-java-"))
    ctx = JudgeContext(sandbox=sandbox, toolchain=toolchain, cache=ContentCache(None, default_cache_dir() / "cache"),
                       scratch=scratch, jobs=1)
    totals: dict[str, list[float]] = {mode: [] for mode in MODES}
    try:
        for record in java_samples(args.sample):
            problem = prepare_problem(record, ctx)
            compiled = compile_program("java", reference_revision(record) or "", sandbox=sandbox,
                                       toolchain=toolchain, out_dir=Path(tempfile.mkdtemp(dir=scratch)) / "prog")
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
