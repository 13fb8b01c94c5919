"""A cold problem set-up, step by step: what a run pays once per problem before judging.

    PYTHONPATH=$PWD .venv/bin/python bench/setup.py [--problems lr01 lr02] [--json out.json]

With an empty content cache (a temporary ``LINTEVAL_CACHE_DIR``), in one process on one
thread (``jobs=1``, as a validation actor with ``num_cpus: 1``), for every bundled problem:
the three testlib tools compiled (checker, generator, validator), the generator and the
validator run on every command line, then per sample the original compiled, run on every test
for the answers, and the checker's self-check; last, every original linted (one linter call
per language, as a batch does; the warm linter processes' background CPU stays in that step).
The precompiled headers (once per node) are built first and reported apart.

CPU-seconds of this process and its reaped and live children (``bench.cpu.tree_cpu_s``), never
wall time. Sandboxed runs are told apart by the program they mount (generator, validator,
checker, or an original). The digests at the end (test inputs, the original's answers, the
reference revisions' verdicts) let a run of another version be compared for sameness: run this
script with ``PYTHONPATH`` pointing at that version's package first.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: make `bench` and the package importable
    sys.path.insert(0, str(ROOT))

from bench.cpu import tree_cpu_s  # noqa: E402
from linteval_ray.config import ValidationConfig  # noqa: E402
from linteval_ray.languages.registry import testlib_language  # noqa: E402
from linteval_ray.schema.bundled import bundled_path  # noqa: E402
from linteval_ray.schema.record import LintEvalRecord  # noqa: E402
from linteval_ray.validate.judge import JudgeContext, judge_revision  # noqa: E402
from linteval_ray.validate.judge.compile import CompiledProgram, compile_cached, precompiled_headers  # noqa: E402
from linteval_ray.validate.judge.problem import (  # noqa: E402
    PreparedProblem,
    ProblemErrorKind,
    ReferenceRun,
    TestSet,
    build_tests,
    compile_tool,
    run_reference,
    verify_checker,
)
from linteval_ray.validate.sandbox.base import Mount, RunLimits, RunResult  # noqa: E402

TOOL_STEPS = ("checker", "generator", "validator")
STEPS = (*(f"compile {tool}" for tool in TOOL_STEPS), "run generator", "run validator",
         "compile original", "run original", "run checker", "lint original")


@dataclass
class MeteredContext(JudgeContext):
    """A judge context that books each sandboxed run's CPU to the program it mounts."""

    programs: dict[Path, str] = field(default_factory=dict)
    cpu_s: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    revision_checker_s: list[float] = field(default_factory=list)  # per judged revision: a warm cost

    def run(self, argv: list[str], *, limits: RunLimits, stdin: bytes | Path | None = None,
            mounts: list[Mount] | None = None, env: dict[str, str] | None = None,
            files: dict[str, bytes] | None = None) -> RunResult:
        label = self.programs.get(mounts[0].src, "original") if mounts else "original"
        start = tree_cpu_s()
        try:
            return super().run(argv, limits=limits, stdin=stdin, mounts=mounts, env=env, files=files)
        finally:
            self.cpu_s[f"run {label}"] += tree_cpu_s() - start


@contextmanager
def metered(into: dict[str, float], step: str) -> Iterator[None]:
    start = tree_cpu_s()
    try:
        yield
    finally:
        into[step] += tree_cpu_s() - start


def bundled_by_problem(problems: list[str] | None) -> dict[str, list[LintEvalRecord]]:
    by_problem: dict[str, list[LintEvalRecord]] = defaultdict(list)
    for line in bundled_path().read_text().splitlines():
        record = LintEvalRecord.model_validate_json(line)
        if problems is None or record.problem_id in problems:
            by_problem[record.problem_id].append(record)
    return dict(sorted(by_problem.items()))


def set_up_problem(records: list[LintEvalRecord], ctx: MeteredContext) -> tuple[dict[str, float], dict[str, str]]:
    """Per-step CPU of one problem's cold set-up, and what it produced (digests, verdicts)."""
    first = records[0]
    before = dict(ctx.cpu_s)
    steps: dict[str, float] = defaultdict(float)
    tools = {}
    for tool in TOOL_STEPS:
        with metered(steps, f"compile {tool}"):
            tools[tool] = compile_tool(getattr(first, tool), ctx, ProblemErrorKind(f"{tool}_compile_error"))
        ctx.programs[tools[tool].artifact_dir] = tool
    tests = build_tests(first, ctx)  # its runs are booked by the context
    produced = {"tests": tree_digest(tests.directory, ".in")}
    for record in records:
        with metered(steps, "compile original"):
            compile_cached(record.language, record.code, ctx)
        reference = run_reference(record.language, record.code, tests, ctx)  # compile: a cache hit now
        verify_checker(tools["checker"], tests, reference, ctx)
        produced[f"{record.sample_id} answers"] = tree_digest(reference.directory, ".ans")
        if record.revised_code:
            produced[f"{record.sample_id} verdict"] = reference_verdict(record, tools["checker"], tests, reference, ctx)
    for label, cpu in ctx.cpu_s.items():
        steps[label] += cpu - before.get(label, 0.0)
    return steps, produced


def reference_verdict(record: LintEvalRecord, checker: CompiledProgram, tests: TestSet, reference: ReferenceRun,
                      ctx: MeteredContext) -> str:
    """The reference revision's verdict: not set-up work (its runs are not booked, but for the
    checker's, which every revision pays again, kept apart), it only shows the tools judge alike."""
    booked = dict(ctx.cpu_s)
    problem = PreparedProblem(checker=checker, tests=tests, reference=reference)
    verdict = judge_revision(record.language, record.revised_code or "", problem, ctx).verdict.value
    checker_s = ctx.cpu_s["run checker"] - booked.get("run checker", 0.0)
    ctx.cpu_s.clear()
    ctx.cpu_s.update(booked)
    if checker_s > 0:  # its checker ran (not a compile error)
        ctx.revision_checker_s.append(checker_s)
    return verdict


def tree_digest(directory: Path, suffix: str) -> str:
    digest = hashlib.sha256()
    for path in sorted(directory.glob(f"*{suffix}")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def measure(problems: list[str] | None) -> dict[str, Any]:
    by_problem = bundled_by_problem(problems)
    with tempfile.TemporaryDirectory(prefix="bench-setup-") as tmp:
        os.environ["LINTEVAL_CACHE_DIR"] = tmp  # read by the Validator: an empty cache
        from linteval_ray.validate.engine import Validator

        validator = Validator(ValidationConfig())
        try:
            ctx = MeteredContext(sandbox=validator.sandbox, toolchain=validator.toolchain, cache=validator.cache,
                                 scratch=Path(tmp) / "scratch", limits=validator.config.limits, jobs=1,
                                 python=validator.config.python)
            per_node: dict[str, float] = defaultdict(float)
            for for_tools, step in ((True, "pch testlib.h"), (False, "pch bits/stdc++.h")):
                with metered(per_node, step):
                    precompiled_headers(testlib_language(), for_tools, ctx)
            per_problem: dict[str, dict[str, float]] = {}
            produced: dict[str, dict[str, str]] = {}
            for problem_id, records in by_problem.items():
                per_problem[problem_id], produced[problem_id] = set_up_problem(records, ctx)
                steps = per_problem[problem_id]
                print(f"  {problem_id}: {sum(steps.values()):.2f} CPU-s: "
                      + ", ".join(f"{step} {cpu:.2f}" for step, cpu in steps.items()), flush=True)
            lint = defaultdict(float)
            with metered(lint, "lint"):
                validator.lint_originals([r for records in by_problem.values() for r in records])
            for problem_id, records in by_problem.items():  # the batch's lint CPU, shared by sample
                share = lint["lint"] * len(records) / sum(len(r) for r in by_problem.values())
                per_problem[problem_id]["lint original"] = share
        finally:
            validator.close()
    return {"per_node": dict(per_node), "per_problem": per_problem, "produced": produced,
            "revision_checker_s": ctx.revision_checker_s,
            "flags": list(testlib_language().flags(True))}


def print_report(result: dict[str, Any]) -> None:
    per_problem = result["per_problem"]
    n = len(per_problem)
    print(f"tool flags: {' '.join(result['flags'])}; {n} problems, one thread, empty cache")
    print("per node: " + ", ".join(f"{step} {cpu:.2f}" for step, cpu in result["per_node"].items()) + " CPU-s")
    print(f"{'CPU-s per problem':20}" + "".join(f"{p:>7}" for p in per_problem) + f"{'mean':>7}")
    for step in (*STEPS, "= set-up"):
        values = [sum(s.values()) if step == "= set-up" else s.get(step, 0.0) for s in per_problem.values()]
        print(f"{step:20}" + "".join(f"{v:7.2f}" for v in values) + f"{sum(values) / n:7.2f}")
    tools = [sum(s.get(f"compile {t}", 0.0) for t in TOOL_STEPS) + s.get("run generator", 0.0)
             + s.get("run validator", 0.0) for s in per_problem.values()]
    print(f"tools compiled + generator/validator runs: {sum(tools) / n:.2f} CPU-s per problem")
    checks = result["revision_checker_s"]
    print(f"checker runs per judged revision (paid warm too): {sum(checks) / max(1, len(checks)):.3f} CPU-s "
          f"over {len(checks)} revisions")
    produced = json.dumps(result["produced"], sort_keys=True).encode()
    print(f"outputs digest (tests, answers, verdicts): {hashlib.sha256(produced).hexdigest()[:16]}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--problems", nargs="+", help="bundled problem ids (default: all)")
    parser.add_argument("--json", type=Path, help="write the figures and the outputs' digests here")
    args = parser.parse_args(argv)
    result = measure(args.problems)
    print_report(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
