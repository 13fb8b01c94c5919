"""``linteval-ray suite``'s judging against the published harness's, on real problems, in one run.

    PYTHONPATH=$PWD python -m bench.suite_harness [--harness-solutions 6] [--json out.json]

The problems: the twenty real CodeContests problems of SandboxFusion's sample file (35 to 331 tests
each, ``tests/tasks/codecontests_o/data/sandboxfusion``) with the 27 correct and incorrect programs
written for them (C++, Python 3, Java).

1. **suite, warm**: each solution judged as a suite's validation actor judges it
   (``tasks/codecontests_o/suite.py``: compiled once, -O2, each test in a box of its own, the outputs
   compared in one box; the problem's tests and comparison prepared once per worker: a first pass,
   not counted, warms them);
2. **harness**: what the published harness does (CodeContests-O ``core/validator.py`` through
   SandboxFusion): per test, a fresh folder, the solution compiled again (C++: ``g++ -std=c++17
   sol.cpp -o test -lpthread``, no -O2; Java: ``javac``), run in a process of its own, its output
   compared in Python (``compat.harness_accepts``), in the same sandbox (the comparison is of the work,
   not of the isolation), on ``--harness-solutions`` of the solutions (it is slow).

CPU, not wall time (the machine is shared): this process, its reaped children and its live ones (the
box server and its boxes: ``bench/cpu.py``). Solutions per second per core = 1 / CPU-s per solution.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

import yaml

from bench.cpu import tree_cpu_s
from linteval_ray.config import ValidationConfig, load_config
from linteval_ray.languages.java.commands import RUN_FLAGS, java_file_and_main_class
from linteval_ray.pipeline.dataset import resolved
from linteval_ray.pipeline.inputs import load_local_inputs
from linteval_ray.tasks.base import SolutionOptions
from linteval_ray.tasks.codecontests_o.compat import harness_accepts
from linteval_ray.tasks.codecontests_o.judge import Problems
from linteval_ray.tasks.codecontests_o.record import CodeContestsRecord
from linteval_ray.tasks.codecontests_o.suite import GivenTestsJudge
from linteval_ray.validate.engine import Validator
from linteval_ray.validate.judge.compile import compile_program
from linteval_ray.validate.judge.context import JudgeContext
from linteval_ray.validate.sandbox.base import RunLimits

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "tasks" / "codecontests_o" / "data" / "sandboxfusion"
LANGUAGES = {"cpp": "cpp", "py": "py3", "java": "java"}
# The harness's: 20 s of wall clock, no memory limit (a JVM reserves far more address space than it uses).
HARNESS_LIMITS = RunLimits(wall_s=20.0, memory_mb=None, output_bytes=64 << 20, file_size_mb=256, tmp_mb=512)


def records() -> dict[tuple[str, str], CodeContestsRecord]:
    """(problem, language) -> its record, the problems' tests stored in this node's content cache."""
    overrides = [f"dataset.source={json.dumps(str(DATA / 'code_contests.jsonl'))}", "generation.replay.predictions=x",
                 'dataset.languages=["cpp","py3","java"]']
    found = {}
    for row in load_local_inputs(resolved(load_config(None, overrides))).rows:
        record = CodeContestsRecord.model_validate_json(row["record_json"])
        found[(record.problem_id, record.language)] = record
    return found


def solutions() -> list[dict[str, Any]]:
    expected = yaml.safe_load((DATA / "expected.yaml").read_text())
    return [{"file": name, "problem": facts["problem"], "language": LANGUAGES[name.rsplit(".", 1)[1]],
             "code": (DATA / "solutions" / name).read_text(), "verdict": facts["strict"]}
            for name, facts in sorted(expected.items())]


def suite_costs(judge: GivenTestsJudge, judge_ctx: JudgeContext, found: dict[tuple[str, str], CodeContestsRecord],
                chosen: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """CPU-s per solution (and the programs' own), each solution judged once warm."""
    options = SolutionOptions(cpp_dialects=("gnu++11", "gnu++98"))
    costs = {}
    for solution in chosen:
        record = found[(solution["problem"], solution["language"])]
        start = tree_cpu_s()
        judged = judge.judge(record.model_dump_json(), solution["language"], solution["code"], options)
        spent = tree_cpu_s() - start
        assert judged.result is not None and judged.result.verdict == solution["verdict"], solution["file"]
        costs[solution["file"]] = {"cpu_s": spent, "programs_own": sum(t.cpu_s for t in judged.result.tests),
                                   "tests": float(len(judged.result.tests)),
                                   "compile_cpu_s": _compile_cpu_s(judge_ctx, solution)}
    return costs


def _compile_cpu_s(ctx: JudgeContext, solution: dict[str, Any]) -> float:
    """CPU-s of compiling the solution alone, as the suite does (once, -O2, the node's headers)."""
    with tempfile.TemporaryDirectory(dir=ctx.scratch) as tmp:
        start = tree_cpu_s()
        compile_program(solution["language"], solution["code"], ctx, Path(tmp) / "prog")
        return tree_cpu_s() - start


def harness_costs(judge_worker: Validator, found: dict[tuple[str, str], CodeContestsRecord],
                  chosen: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """CPU-s per solution of the published harness's way: compiled again for every test."""
    problems = Problems(judge_worker.judge)
    costs = {}
    for solution in chosen:
        problem = problems.get(found[(solution["problem"], solution["language"])])
        ctx, prepared = problem.ctx, problem.prepared
        start, own = tree_cpu_s(), 0.0
        for name in prepared.tests.names:
            with tempfile.TemporaryDirectory(dir=ctx.scratch) as tmp:
                folder = Path(tmp)
                argv = _built(ctx, folder, solution)
                ran = ctx.run_in(folder, argv, limits=HARNESS_LIMITS, stdin=prepared.tests.input_path(name))
            harness_accepts(prepared.reference.answer_path(name).read_text(), ran.stdout.decode("utf-8", "replace"))
            own += ran.cpu_s
        costs[solution["file"]] = {"cpu_s": tree_cpu_s() - start, "programs_own": own,
                                   "tests": float(len(prepared.tests.names))}
    return costs


def _built(ctx: JudgeContext, folder: Path, solution: dict[str, Any]) -> list[str]:
    """Compile the solution in ``folder`` as the harness does for each test; its run's argv."""
    tools = ctx.tool_paths()
    if solution["language"] == "cpp":
        (folder / "sol.cpp").write_text(solution["code"])
        compile_argv = [tools["gxx"], "-std=c++17", "sol.cpp", "-o", "test", "-lpthread"]
        run_argv = ["./test"]
    elif solution["language"] == "java":
        source, main_class = java_file_and_main_class(solution["code"])
        (folder / source).write_text(solution["code"])
        compile_argv = [tools["javac"], "-J-Xmx512m", "-encoding", "UTF-8", "-d", ".", source]
        run_argv = [tools["java"], "-Xmx512m", *RUN_FLAGS, "-cp", ".", main_class]
    else:
        (folder / "sol.py").write_text(solution["code"])
        return [tools["python"], "sol.py"]
    built = ctx.run_in(folder, compile_argv, limits=HARNESS_LIMITS)
    assert built.ok, built.stderr[-2000:]
    return run_argv


def per_core(costs: dict[str, dict[str, float]], files: list[str]) -> dict[str, float]:
    cpu = sum(costs[f]["cpu_s"] for f in files) / len(files)
    own = sum(costs[f]["programs_own"] for f in files) / len(files)
    return {"cpu_s_per_solution": round(cpu, 3), "programs_own_cpu_s": round(own, 3),
            "solutions_per_s_per_core": round(1 / cpu, 4), "beyond_programs_per_s_per_core": round(1 / (cpu - own), 4),
            "tests_per_solution": round(sum(costs[f]["tests"] for f in files) / len(files), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--harness-solutions", type=int, default=6,
                        help="solutions the harness judges too (as many per language, the fewest tests first; 0: none)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    worker = Validator(ValidationConfig())
    try:
        found, chosen = records(), solutions()
        judge = GivenTestsJudge(worker)
        suite_costs(judge, worker.judge, found, chosen)  # warm: each problem prepared, tools and headers built
        ours = suite_costs(judge, worker.judge, found, chosen)
        by_language: dict[str, list[str]] = {}
        for solution in sorted(chosen, key=lambda s: ours[s["file"]]["tests"]):
            by_language.setdefault(solution["language"], []).append(solution["file"])
        subset = [f for files in by_language.values() for f in files[:args.harness_solutions // 3]]
        theirs = harness_costs(worker, found, [s for s in chosen if s["file"] in subset]) if subset else {}
    finally:
        worker.close()
    figures: dict[str, Any] = {
        "problems": len({s["problem"] for s in chosen}), "solutions": len(chosen),
        "suite_all": per_core(ours, [s["file"] for s in chosen]),
        # the plan's figures: CPU-s per test beyond the compile, and the compile alone
        "suite_by_language": {language: per_core(ours, files) | {"compile_cpu_s": round(
            sum(ours[f]["compile_cpu_s"] for f in files) / len(files), 3)} for language, files in by_language.items()}}
    if subset:
        figures |= {"suite_on_harness_subset": per_core(ours, subset), "harness": per_core(theirs, subset),
                    "harness_subset": subset}
        figures["speedup"] = round(figures["harness"]["cpu_s_per_solution"]
                                   / figures["suite_on_harness_subset"]["cpu_s_per_solution"], 1)
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
