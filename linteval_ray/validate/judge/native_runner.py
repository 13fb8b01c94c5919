"""C++ and Python tests in one box per revision: ``native_runner.c`` runs them one after the other.

A box costs ~8.5 ms of CPU per test to set up and tear down (namespaces, mounts, the init), about
half of a C++ revision's test CPU and a quarter of a Python one's (bench/README.md). The runner
starts one box per revision, with the same rlimits, mounts, environment and seccomp filter as a box
per test, and runs each test as its child: the test's input file as stdin, pipes as stdout and
stderr (as a box of its own has; the runner drains them), RLIMIT_CPU at the test's limit.

Verdicts cannot drift because the runner only keeps tests that ended normally and left nothing a
later test could observe: exit status 0, CPU time under ``CPU_SHARE`` of the test's limit and wall
time under the limit, stdout and stderr under the output cap, no process alive after the test and
no pid used but its own, the box's writable file systems exactly as before it (entries, times,
extended attributes) and its network namespace too (sockets in any state, packet counters). At the
first test that did not, the runner stops, and that test and every later one go through the
box-per-test path (``run.run_one_test``): crashes, memory and output limits are all judged there,
by the reference path. Outputs are checked as for any test (``check.py``). One exception, so that a
time limit costs one run and not two: a test whose process was killed by RLIMIT_CPU (SIGXCPU, or
SIGKILL at the hard limit) before its wall cap comes back as its run (``WarmRun.out_of_time``), and
the judge scores it as the box-per-test path would score that run, when that path would not run it
again (``run.run_tests``). And a test the wall-clock cap ended (a sleeper, a fork bomb), which the
box-per-test path runs twice to count, counts the runner's run as the first: it gets one box of its
own, whose run decides (``WarmRun.next_ran_to_wall_cap``), instead of two.

Why no test can help another (or the score): the inputs are not in the box (the runner reads them
through a directory descriptor only it holds), so no test can list, stat or read another's; a test's
CPU time is everything its processes used (the runner, as the box's pid 1, reaps whatever it left
and kills what still runs); nothing a test leaves is kept (above; SysV and POSIX IPC objects, which
would outlive it in the box's IPC namespace, kill the test that asks for one, so it runs again in a
box of its own where they are allowed); and the runner's report reaches us on a pipe only pid 1
holds, which no program can open (pid 1 is not dumpable) or signal.
"""

from __future__ import annotations

import functools
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

from linteval_ray.languages.base import OneBox
from linteval_ray.validate.judge.check import DETAIL_CAP
from linteval_ray.validate.judge.compile import CompiledProgram
from linteval_ray.validate.judge.failure import HEAD_BYTES
from linteval_ray.validate.judge.limits import test_run_limits
from linteval_ray.validate.judge.warm import WarmRun, WarmTest, within_budgets
from linteval_ray.validate.sandbox.base import Mount, RunLimits, RunResult, SandboxError
from linteval_ray.validate.sandbox.native import compiled
from linteval_ray.validate.sandbox.process import cpu_limit_s, killed_for_cpu
from linteval_ray.validate.scratch import work_dir

if TYPE_CHECKING:
    from linteval_ray.validate.judge.context import JudgeContext
    from linteval_ray.validate.judge.problem import TestSet
    from linteval_ray.validate.judge.records import ReferenceTest

log = logging.getLogger(__name__)

SOURCE = Path(__file__).with_name("native_runner.c")
RUNNER = "/native-runner"  # the runner binary, read-only in the box
# A test using more than this share of its CPU limit is judged again in a box of its own: a box
# adds its own set-up to the run's CPU time, so a test at its limit must not be judged here.
CPU_SHARE = 0.8
# The outputs of all tests together, in output caps: they are held until checked (box-per-test
# runs hold one per job), so a revision printing near the cap on every test goes back to those.
OUTPUT_BUDGET_CAPS = 2
STARTUP_CPU_S = 1.0  # the runner's own work, on top of the largest test's limit
STARTUP_WALL_S = 10.0
REPORT_LINE_BYTES = 256
# Of a test that ran out of time: its stdout's head, one byte more than a first failure keeps (to
# tell whether there was more), and its stderr's tail, enough for the detail's characters.
STDOUT_HEAD_BYTES = HEAD_BYTES + 1
STDERR_TAIL_BYTES = 4 * DETAIL_CAP + 3


def fits_one_box(program: CompiledProgram, ctx: JudgeContext) -> bool:
    """A language whose runner is one box (``OneBox``: C++, Python), in a sandbox whose every run
    has a pid namespace of its own, on a node that can build the runner."""
    return isinstance(program.spec.runner, OneBox) and ctx.sandbox.pid_namespace and runner_binary() is not None


@functools.cache
def runner_binary() -> str | None:
    """The runner, built once per node; None (and a warning, once) where it cannot be: a libc
    without ``close_range`` or ``memfd_create`` (before 2.34)."""
    try:
        return compiled(SOURCE)
    except SandboxError as exc:
        log.warning("C++ and Python tests take a box each (slower, same verdicts): %s", exc)
        return None


def run_in_one_box(
    program: CompiledProgram, tests: list[tuple[ReferenceTest, float]], inputs: TestSet, ctx: JudgeContext
) -> WarmRun:
    """The longest prefix of ``tests`` (each with its time limit) that ended normally in one box,
    and the run of the next test when RLIMIT_CPU ended it."""
    binary = runner_binary()
    if not tests or binary is None:
        return WarmRun()
    cap = ctx.limits.output_mb << 20
    budget = OUTPUT_BUDGET_CAPS * cap
    test_limits = [test_run_limits(program, limit, ctx) for _, limit in tests]
    plan = "".join(
        f"{test.name}\t{inputs.input_path(test.name).name}\t{int(CPU_SHARE * limit * 1000)}\t"
        f"{cpu_limit_s(run)}\t{int(limit * 1000)}\t{int(run.wall_s * 1000)}\n"
        for (test, limit), run in zip(tests, test_limits, strict=True))
    # The inputs as a descriptor only the runner holds: nothing of them is in the box.
    inputs_fd = os.open(inputs.directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    argv = [RUNNER, str(inputs_fd), str(cap), str(budget), str(STDOUT_HEAD_BYTES), str(STDERR_TAIL_BYTES),
            *program.argv(ctx.limits.memory_mb)]
    limits = RunLimits(
        # Kept tests end within their limits; the one it stops at, within its wall cap.
        wall_s=STARTUP_WALL_S + sum(limit for _, limit in tests) + max(run.wall_s for run in test_limits),
        # RLIMIT_CPU is per process: each test's own is set by the runner, under this hard limit.
        cpu_s=STARTUP_CPU_S + max(limit for _, limit in tests) + 1,
        memory_mb=test_limits[0].memory_mb,
        resident_mb=test_limits[0].resident_mb,
        output_bytes=budget + REPORT_LINE_BYTES * (len(tests) + 1) + STDOUT_HEAD_BYTES + STDERR_TAIL_BYTES,
        file_size_mb=ctx.limits.output_mb,
    )
    mounts = [program.mount(), Mount(src=Path(binary), dst=RUNNER)]
    with work_dir(ctx.scratch, "native-runner-") as workdir:
        result = ctx.run_in(workdir, argv, limits=limits, stdin=plan.encode(), mounts=mounts, env=program.env(),
                            as_pid1=True, fds=(inputs_fd,))
    names = [test.name for test, _ in tests]
    done, at = read_report(result.stdout, names)
    kept = within_budgets(done, [limit for _, limit in tests], CPU_SHARE)
    out_of_time = None
    if len(kept) == len(done) < len(tests):
        out_of_time = read_out_of_time(result.stdout[at:], names[len(done)], test_limits[len(done)])
    walled = len(kept) == len(done) < len(tests) and ran_to_wall_cap(result.stdout[at:], names[len(done)])
    if len(kept) < len(tests) and out_of_time is None and not walled:
        log.debug("one-box runner: %s; kept %d of %d tests (exit %s, signal %s: %s)",
                  result.stdout[at:at + REPORT_LINE_BYTES].split(b"\n")[0].decode("ascii", "replace"),
                  len(kept), len(tests), result.exit_code, result.signal,
                  result.stderr.decode("utf-8", "replace")[-300:])
    return WarmRun(kept=kept, out_of_time=out_of_time, next_ran_to_wall_cap=walled)


def read_report(report: bytes, names: list[str]) -> tuple[list[WarmTest], int]:
    """The kept tests in plan order (each a "done NAME CPU_NS WALL_NS SIZE" line, then its output),
    and where the report goes on."""
    done: list[WarmTest] = []
    at = 0
    for name in names:
        words = _report_line(report, at)
        if len(words) != 5 or words[:2] != ["done", name] or not all(word.isdigit() for word in words[2:]):
            break
        cpu_ns, wall_ns, size = (int(word) for word in words[2:])
        start = report.index(b"\n", at) + 1
        output = report[start:start + size]
        if len(output) != size:
            break  # the box was stopped while the report was written
        done.append(WarmTest(name=name, stdout=output, cpu_s=cpu_ns / 1e9, wall_s=wall_ns / 1e9))
        at = start + size
    return done, at


def read_out_of_time(report: bytes, name: str, limits: RunLimits) -> RunResult | None:
    """The run of a test RLIMIT_CPU ended, from its "ended NAME SIGNAL CPU_NS WALL_NS MAXRSS_KB
    OUT_SIZE ERR_SIZE HEAD TAIL" line and the bytes after it; None if the report says otherwise."""
    words = _report_line(report, 0)
    if len(words) != 10 or words[:2] != ["ended", name] or not all(word.isdigit() for word in words[2:]):
        return None
    sig, cpu_ns, wall_ns, maxrss_kb, _out_size, _err_size, head, tail = (int(word) for word in words[2:])
    start = report.index(b"\n") + 1
    if len(report) != start + head + tail:
        return None  # cut short (the runner stops at an output past the cap before this line)
    cpu_s = cpu_ns / 1e9
    return RunResult(exit_code=None, signal=sig, stdout=report[start:start + head], stderr=report[start + head:],
                     wall_s=wall_ns / 1e9, cpu_s=cpu_s, timed_out=killed_for_cpu(sig, cpu_s, limits),
                     peak_rss_mb=maxrss_kb / 1024)


def ran_to_wall_cap(report: bytes, name: str) -> bool:
    """Whether the runner stopped at test ``name`` because the test's wall-clock cap ended it (its
    report is on a pipe no program can write to)."""
    return _report_line(report, 0) == ["stop", name, "wall_cap"]


def _report_line(report: bytes, at: int) -> list[str]:
    end = report.find(b"\n", at, at + REPORT_LINE_BYTES)
    return report[at:end].decode("ascii", "replace").split(" ") if end >= 0 else []
