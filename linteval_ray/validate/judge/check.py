"""Check a revision's outputs: the problem's testlib checker on (input, output, answer), in the box.

The checker runs as ``checker input output answer``; its exit code is the verdict: 0 OK, 1 WA,
2 PE and 4 (extra output, testlib's "dirt") → wrong_answer. Anything else (3, testlib's FAIL; a
crash, a timeout, testlib's points/partial codes) means the checker failed on this output: the
judge then checks the original's own answer to that test (``run.PendingChecks``). If the checker
accepts it, the output is what broke it, and the test is the revision's wrong_answer, with the
evidence; else the problem is invalid. Either way the row stays in the score: no output can make
its revision's row an infra error.

A box costs more CPU to set up and tear down (~23 ms) than a testlib checker's run, so a
revision's outputs are checked in batches: ``check_batch.c`` runs the checker on each output of a
batch, one after the other, in one box. Each check still gets what a box of its own gives it: the
same rlimits (they are per process), /dev/null as stdin, the checker's wall limit (the driver
kills the check's process group then), its stdout and stderr capped at the same size. So a batch
gives the verdicts and messages one box per check gives. A batch holds outputs up to
``BATCH_BUDGET_CAPS`` output caps (they are in memory until checked, then in its work dir); a
check the driver did not report (its box was killed) is run again in a box of its own.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from linteval_ray.schema.result import Verdict
from linteval_ray.validate.judge.context import JudgeContext
from linteval_ray.validate.judge.problem import (
    OUTPUT_FILE,
    PreparedProblem,
    checker_argv,
    checker_limits,
    checker_mounts,
)
from linteval_ray.validate.sandbox.base import Mount, RunLimits, RunResult
from linteval_ray.validate.sandbox.box_init import cpu_limit_s
from linteval_ray.validate.sandbox.native import compiled
from linteval_ray.validate.scratch import read_regular_file, work_dir

DETAIL_CAP = 500
CHECKER_VERDICTS = {0: Verdict.PASSED, 1: Verdict.WRONG_ANSWER, 2: Verdict.WRONG_ANSWER, 4: Verdict.WRONG_ANSWER}
CHECKER_FAIL_EXIT = 3
DRIVER_SOURCE = Path(__file__).with_name("check_batch.c")
DRIVER = "/check-batch"  # the driver binary, read-only in the box
PLAN_FILE = "checks.tsv"
OUTPUTS_DIR, STDOUT_DIR, STDERR_DIR = "out", "log", "err"  # in the batch's work dir, a file per check
BATCH_BUDGET_CAPS = 2
DRIVER_START_S = 5.0
REPORT_BYTES = 1 << 20

Output = tuple[str, bytes]  # a test's name and the revision's output on it


class Checked(NamedTuple):
    """The checker's verdict on one output and its message; ``failed``: the checker itself failed
    (the verdict is then wrong_answer until its run on the original's answer says otherwise)."""

    verdict: Verdict
    message: str
    failed: bool = False


def check_outputs(outputs: Sequence[Output], problem: PreparedProblem, ctx: JudgeContext) -> list[Checked]:
    """Each output's verdict, in order, from as few boxes as the batch budget allows."""
    checked: list[Checked] = []
    for batch in batches(outputs, BATCH_BUDGET_CAPS * (ctx.limits.output_mb << 20)):
        checked += check_batch(batch, problem, ctx) if len(batch) > 1 else [check_output(*batch[0], problem, ctx)]
    return checked


def batches(outputs: Sequence[Output], budget: int) -> Iterator[list[Output]]:
    """Consecutive outputs, as many per batch as fit ``budget`` bytes (at least one)."""
    batch: list[Output] = []
    size = 0
    for name, output in outputs:
        if batch and size + len(output) > budget:
            yield batch
            batch, size = [], 0
        batch.append((name, output))
        size += len(output)
    if batch:
        yield batch


def check_output(name: str, output: bytes, problem: PreparedProblem, ctx: JudgeContext) -> Checked:
    """One output checked in a box of its own."""
    mounts = checker_mounts(problem.checker, problem.tests, problem.reference)
    result = ctx.run(checker_argv(problem.checker, name), limits=checker_limits(problem.checker, ctx), mounts=mounts,
                     files={OUTPUT_FILE: output})
    return checker_verdict(name, result)


def check_batch(batch: list[Output], problem: PreparedProblem, ctx: JudgeContext) -> list[Checked]:
    """The outputs of ``batch`` checked one after the other in one box (see the module docstring)."""
    per_check = checker_limits(problem.checker, ctx)
    with work_dir(ctx.scratch, "checks-") as workdir:
        plan = []
        for folder in (OUTPUTS_DIR, STDOUT_DIR, STDERR_DIR):
            (workdir / folder).mkdir()
        for index, (name, output) in enumerate(batch):
            (workdir / OUTPUTS_DIR / str(index)).write_bytes(output)
            argv = checker_argv(problem.checker, name, f"{OUTPUTS_DIR}/{index}")
            plan.append("\t".join([f"{STDOUT_DIR}/{index}", f"{STDERR_DIR}/{index}", *argv]) + "\n")
        (workdir / PLAN_FILE).write_text("".join(plan))
        limits = RunLimits(
            wall_s=DRIVER_START_S + len(batch) * per_check.wall_s,
            cpu_s=cpu_limit_s(per_check),  # RLIMIT_CPU is per process: each check's own
            memory_mb=per_check.memory_mb,
            output_bytes=REPORT_BYTES,
            file_size_mb=per_check.file_size_mb,
            stack_mb=per_check.stack_mb,
        )
        mounts = [*checker_mounts(problem.checker, problem.tests, problem.reference),
                  Mount(src=Path(compiled(DRIVER_SOURCE)), dst=DRIVER)]
        argv = [DRIVER, PLAN_FILE, str(int(per_check.wall_s * 1000))]
        result = ctx.run_in(workdir, argv, limits=limits, mounts=mounts)
        reported = [checker_verdict(name, run) for (name, _), run in
                    zip(batch, read_report(result.stdout, workdir, per_check), strict=False)]
    return reported + [check_output(name, output, problem, ctx) for name, output in batch[len(reported):]]


def read_report(stdout: bytes, workdir: Path, limits: RunLimits) -> Iterator[RunResult]:
    """Each reported check as the run a box of its own would have given (``process._classify``)."""
    for index, line in enumerate(stdout.decode("ascii", "replace").splitlines()):
        try:
            code, sig, killed = (int(word) for word in line.split(" "))
        except ValueError:
            return
        logged = read_regular_file(workdir / STDOUT_DIR, str(index))
        stderr = read_regular_file(workdir / STDERR_DIR, str(index))
        if logged is None or stderr is None:
            return
        # Past the cap, or stopped at RLIMIT_FSIZE on reaching it (a box's pipe would take no more).
        written = max(len(logged), len(stderr))
        exceeded = written > limits.output_bytes or (sig == signal.SIGXFSZ and written >= limits.output_bytes)
        if killed or exceeded:  # killed by us: its status says SIGKILL
            code, sig = -1, signal.SIGKILL
        yield RunResult(
            exit_code=None if code < 0 else code,
            signal=sig or None,
            stderr=stderr[:limits.output_bytes],
            timed_out=bool(killed) or sig == signal.SIGXCPU,
            output_exceeded=exceeded,
        )


def checker_verdict(name: str, result: RunResult) -> Checked:
    """The verdict the checker's run gives (see the module docstring)."""
    message = stderr_tail(result)
    verdict = None if result.timed_out or result.exit_code is None else CHECKER_VERDICTS.get(result.exit_code)
    if verdict is not None:
        return Checked(verdict, message)
    if result.timed_out or result.exit_code is None:
        how = f"crashed ({message or f'signal {result.signal}'})" if not result.timed_out else "ran out of time"
    elif result.exit_code == CHECKER_FAIL_EXIT:
        how = f"said FAIL ({message})"
    else:
        how = f"exited {result.exit_code} ({message})"
    return Checked(Verdict.WRONG_ANSWER, f"the checker {how} on test {name}", failed=True)


def stderr_tail(result: RunResult) -> str:
    """The last ``DETAIL_CAP`` characters of a run's stderr; a path the cut falls inside is dropped
    (host paths are replaced in rows later, and half of one would not be)."""
    text = result.stderr.decode("utf-8", "replace").strip()
    if len(text) <= DETAIL_CAP:
        return text
    tail = text[-DETAIL_CAP:]
    cut_word = re.match(r"\S*", tail)
    if not text[-DETAIL_CAP - 1].isspace() and cut_word is not None and "/" in cut_word.group():
        tail = tail[cut_word.end():].lstrip()
    return tail
