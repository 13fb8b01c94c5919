"""C++ and Python tests in one box per revision: ``native_runner.c`` runs them one after the other.

A box costs ~8.5 ms of CPU per test to set up and tear down (namespaces, mounts, the init), about
half of a C++ revision's test CPU and a quarter of a Python one's (bench/README.md). The runner
starts one box per revision, with the same rlimits, mounts, environment and seccomp filter as a box
per test, and runs each test as its child: the test's input file as stdin, files as stdout and
stderr, RLIMIT_CPU at the test's limit.

Verdicts cannot drift because the runner only keeps tests that ended normally and left nothing
behind: exit status 0, CPU time under ``CPU_SHARE`` of the test's limit and wall time under the
limit, stdout and stderr under the output cap, no process alive after the test, and the box's
writable file systems exactly as before it. At the first test that did not, the runner stops, and
that test and every later one go through the box-per-test path (``run.run_one_test``): time limits,
crashes, memory and output limits are all judged there, by the reference path. Outputs are checked
as for any test (``check.py``).

Why no test can help another (or the score): a test's CPU time is everything its processes used
(the runner, as the box's pid 1, reaps whatever it left and kills what still runs); nothing
outlives a kept test (no process, no file; SysV and POSIX IPC objects, which would outlive it in the
box's IPC namespace, kill the test that asks for one, so it runs again in a box of its own where
they are allowed); and the runner's report reaches us on a pipe only pid 1 holds, which no program
can open (pid 1 is not dumpable) or signal. Every test input is visible read-only in the box, as
in the Java runner: with no state carried over, reading a later input gains nothing.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from linteval_ray.validate.judge.compile import CompiledProgram
from linteval_ray.validate.judge.warm import WarmTest, within_budgets
from linteval_ray.validate.sandbox.base import Mount, RunLimits
from linteval_ray.validate.sandbox.native import compiled
from linteval_ray.validate.sandbox.process import cpu_limit_s
from linteval_ray.validate.scratch import work_dir

if TYPE_CHECKING:
    from linteval_ray.validate.judge.context import JudgeContext
    from linteval_ray.validate.judge.problem import ReferenceTest, TestSet

log = logging.getLogger(__name__)

SOURCE = Path(__file__).with_name("native_runner.c")
RUNNER = "/native-runner"  # the runner binary, read-only in the box
INPUTS_DIR = "/inputs"  # the problem's test inputs, read-only in the box
LANGUAGES = ("cpp", "py3")
# A test using more than this share of its CPU limit is judged again in a box of its own: a box
# adds its own set-up to the run's CPU time, so a test at its limit must not be judged here.
CPU_SHARE = 0.8
# The outputs of all tests together, in output caps: they are held until checked (box-per-test
# runs hold one per job), so a revision printing near the cap on every test goes back to those.
OUTPUT_BUDGET_CAPS = 2
STARTUP_CPU_S = 1.0  # the runner's own work, on top of the largest test's limit
STARTUP_WALL_S = 10.0
REPORT_LINE_BYTES = 256


def fits_one_box(program: CompiledProgram, ctx: JudgeContext) -> bool:
    """C++ or Python, in a sandbox whose every run has a pid namespace of its own."""
    return program.language in LANGUAGES and ctx.sandbox.pid_namespace


def run_in_one_box(
    program: CompiledProgram, tests: list[tuple[ReferenceTest, float]], inputs: TestSet, ctx: JudgeContext
) -> list[WarmTest]:
    """The longest prefix of ``tests`` (each with its time limit) that ended normally in one box."""
    if not tests:
        return []
    cap = ctx.limits.output_mb << 20
    budget = OUTPUT_BUDGET_CAPS * cap
    plan = "".join(
        f"{test.name}\t{INPUTS_DIR}/{inputs.input_path(test.name).name}\t{int(CPU_SHARE * limit * 1000)}\t"
        f"{cpu_limit_s(RunLimits(wall_s=limit, cpu_s=limit))}\t{int(limit * 1000)}\n" for test, limit in tests)
    argv = [RUNNER, str(cap), str(budget), *program.argv(ctx.limits.memory_mb)]
    limits = RunLimits(
        wall_s=STARTUP_WALL_S + sum(limit for _, limit in tests),
        # RLIMIT_CPU is per process: each test's own is set by the runner, under this hard limit.
        cpu_s=STARTUP_CPU_S + max(limit for _, limit in tests) + 1,
        memory_mb=program.address_space_mb(ctx.limits.memory_mb),
        output_bytes=budget + REPORT_LINE_BYTES * (len(tests) + 1),
        file_size_mb=ctx.limits.output_mb,
    )
    mounts = [program.mount(), Mount(src=inputs.directory, dst=INPUTS_DIR), Mount(src=Path(compiled(SOURCE)),
                                                                                  dst=RUNNER)]
    with work_dir(ctx.scratch, "native-runner-") as workdir:
        result = ctx.run_in(workdir, argv, limits=limits, stdin=plan.encode(), mounts=mounts, env=program.env(),
                            as_pid1=True)
    names = [test.name for test, _ in tests]
    done = within_budgets(read_report(result.stdout, names), [limit for _, limit in tests], CPU_SHARE)
    if len(done) < len(tests):
        log.debug("one-box runner kept %d of %d tests: %s (exit %s, signal %s: %s)", len(done), len(tests),
                  _stop_line(result.stdout), result.exit_code, result.signal,
                  result.stderr.decode("utf-8", "replace")[-300:])
    return done


def read_report(report: bytes, names: list[str]) -> list[WarmTest]:
    """The kept tests in plan order: each a "done NAME CPU_NS WALL_NS SIZE" line, then its output."""
    done: list[WarmTest] = []
    at = 0
    for name in names:
        end = report.find(b"\n", at, at + REPORT_LINE_BYTES)
        words = report[at:end].decode("ascii", "replace").split(" ") if end >= 0 else []
        if len(words) != 5 or words[:2] != ["done", name] or not all(word.isdigit() for word in words[2:]):
            break
        cpu_ns, wall_ns, size = (int(word) for word in words[2:])
        output = report[end + 1:end + 1 + size]
        if len(output) != size:
            break  # the box was stopped while the report was written
        done.append(WarmTest(name=name, stdout=output, cpu_s=cpu_ns / 1e9, wall_s=wall_ns / 1e9))
        at = end + 1 + size
    return done


def _stop_line(report: bytes) -> str:
    start = report.rfind(b"stop ")
    return report[start:].split(b"\n")[0].decode("ascii", "replace") if start >= 0 else "no report"
