"""Judge a revision: compile it, run it on every prepared test, check each output.

Per test: the time, wall-clock, memory and output limits of ``limits.py``. The output of every
run that ended normally then goes to the problem's testlib checker (``check.py``: its exit code
is the verdict), a batch of outputs per box.

Tests run ``ctx.jobs`` at a time, each in a box of its own (``Sandbox.run``: fresh namespaces,
tmpfs's, cgroups and, for Java, a fresh JVM; nothing of one test reaches another). After the
first time limit no new test starts: the ones not yet started count as failed (``skipped``), so a
hanging revision costs about one time limit per job, not one per test. The first failing test in
test order decides the verdict; tests start in order, so every test before a time limit has run.
That test is described in ``first_failure`` (``failure.py``).

Counts: ``tests_generated`` = generator command lines = passed + failed + dropped, where
dropped = inputs lost before judging (generator failure, validator reject, duplicate,
original failed on it).
"""

from __future__ import annotations

import signal
import threading
import time
from pathlib import Path

from pydantic import BaseModel, Field

from linteval_ray.config import TestLimits
from linteval_ray.schema.record import Language
from linteval_ray.schema.result import FirstFailure, Verdict
from linteval_ray.validate.judge.check import BATCH_BUDGET_CAPS, DETAIL_CAP, check_output, check_outputs, stderr_tail
from linteval_ray.validate.judge.compile import CompiledProgram, compile_program
from linteval_ray.validate.judge.context import JudgeContext
from linteval_ray.validate.judge.failure import HEAD_BYTES, first_failure
from linteval_ray.validate.judge.limits import memory_evidence, test_run_limits, time_limit_s
from linteval_ray.validate.judge.problem import PreparedProblem, ProblemError, ProblemErrorKind
from linteval_ray.validate.judge.records import OutputChecks, ReferenceTest, TestRecord
from linteval_ray.validate.sandbox.base import RunResult
from linteval_ray.validate.scratch import work_dir

# A run stopped with less than this share of its CPU limit used met the wall cap, not the
# limit (rusage and RLIMIT_CPU account a little differently: a spinner killed at 2 s shows ~1.9).
CPU_USED_SHARE = 0.8
CPU_KILL_SIGNALS = (signal.SIGXCPU, signal.SIGKILL)


class Audit(BaseModel):
    """A revision judged in the box server's boxes and in bubblewrap's (``validate/audit.py``)."""

    agreed: bool
    fast: str = Field(description="the box server's judgement, in words (for the log)")


class JudgeResult(BaseModel):
    """The outcome of judging one revision."""

    compile_ok: bool
    verdict: Verdict
    detail: str | None = Field(default=None, description="compiler output or the first failing test's story")
    tests_generated: int = 0
    tests_passed: int = 0
    tests_failed: int = Field(default=0, description="judged tests not passed, including skipped ones")
    tests_dropped: int = 0
    tests_skipped: int = Field(default=0, description="not started after a time limit (counted in failed)")
    tests: list[TestRecord] = Field(default_factory=list)
    first_failure: FirstFailure | None = None
    compile_s: float = 0.0
    tests_s: float = 0.0
    audit: Audit | None = Field(default=None, description="set when the revision was judged by both paths")

    @property
    def pass_at_1(self) -> bool:
        return self.compile_ok and self.verdict == Verdict.PASSED and self.tests_passed > 0

    @property
    def validation_error(self) -> str | None:
        """``None`` when passed, else ``<verdict>[: detail]`` (the result row's string form)."""
        if self.verdict == Verdict.PASSED:
            return None
        return f"{self.verdict.value}: {self.detail}" if self.detail else self.verdict.value


def judge_revision(language: Language, code: str, problem: PreparedProblem, ctx: JudgeContext, *,
                   audit: bool = False) -> JudgeResult:
    """Compile ``code`` and judge it on ``problem``'s tests. ``audit``: judge it again in boxes built the
    reference way (``JudgeContext.reference``), and return that judgement with whether the two agreed."""
    counts = {"tests_generated": problem.tests_generated, "tests_dropped": problem.tests_dropped}
    with work_dir(ctx.scratch, "revision-") as tmp:
        outcome = compile_program(language, code, ctx, Path(tmp) / "prog")
        if outcome.program is None:
            return JudgeResult(
                compile_ok=False,
                verdict=Verdict.COMPILE_ERROR,
                detail=outcome.error,
                tests_failed=len(problem.reference.tests),
                compile_s=outcome.seconds,
                **counts,
            )
        if not problem.reference.tests:
            return JudgeResult(compile_ok=True, verdict=Verdict.NO_TESTS, compile_s=outcome.seconds, **counts)
        result = judged_tests(outcome.program, problem, ctx)
        if audit and ctx.has_reference:
            fast, result = result, judged_tests(outcome.program, problem, ctx.reference())
            result.audit = Audit(agreed=same_judgement(fast, result), fast=in_words(fast))
            result.tests_s += fast.tests_s
    return result.model_copy(update={"compile_s": outcome.seconds, **counts})


def judged_tests(program: CompiledProgram, problem: PreparedProblem, ctx: JudgeContext,
                 checks: OutputChecks | None = None) -> JudgeResult:
    """A compiled revision's judgement on every test (``run_tests``)."""
    started = time.monotonic()
    records = run_tests(program, problem, ctx, checks)
    tests_s = time.monotonic() - started
    verdict, detail = decide_verdict(records)
    failure = first_failure(records, problem) if verdict != Verdict.PASSED else None
    return JudgeResult(
        compile_ok=True,
        verdict=verdict,
        detail=detail,
        tests_passed=sum(r.verdict == Verdict.PASSED for r in records),
        tests_failed=sum(r.verdict != Verdict.PASSED for r in records),
        tests_skipped=sum(r.verdict is None for r in records),
        tests=records,
        first_failure=failure,
        tests_s=tests_s,
    )


def program_broke_the_sandbox(first: Exception, second: Exception) -> JudgeResult:
    """A revision our sandbox failed on twice, with the canaries passing between: the program's failure."""
    evidence = f"the sandbox failed on it twice, its canaries passing between: {first}; then {second}"
    return JudgeResult(compile_ok=True, verdict=Verdict.RUNTIME_ERROR, detail=evidence[:DETAIL_CAP])


def same_judgement(a: JudgeResult, b: JudgeResult) -> bool:
    """The same verdict, counts, per-test verdicts and first failing test (times and memory aside)."""
    return in_words(a) == in_words(b) and [t.verdict for t in a.tests] == [t.verdict for t in b.tests]


def in_words(result: JudgeResult) -> str:
    failure = result.first_failure
    first = f", first failure test {failure.test_name} ({failure.verdict})" if failure else ""
    return (f"{result.verdict} {result.tests_passed} passed {result.tests_failed} failed "
            f"({result.tests_skipped} skipped){first}")


class BatchedChecks:
    """Outputs of runs that ended normally, gathered up to the checker's batch budget (``check.py``) and
    judged together by ``_check``: at the end, or as soon as they hold more than the budget.
    ``run_tests``' threads add to it."""

    def __init__(self, ctx: JudgeContext) -> None:
        self._budget = BATCH_BUDGET_CAPS * (ctx.limits.output_mb << 20)
        self._pending: list[tuple[TestRecord, bytes]] = []
        self._size = 0
        self._lock = threading.Lock()

    def add(self, record: TestRecord, output: bytes) -> None:
        with self._lock:
            self._pending.append((record, output))
            self._size += len(output)
            if self._size <= self._budget:
                return
            full = self._take()
        self._check(full)

    def finish(self) -> None:
        with self._lock:
            rest = self._take()
        if rest:
            self._check(rest)

    def _take(self) -> list[tuple[TestRecord, bytes]]:
        taken, self._pending, self._size = self._pending, [], 0
        return taken

    def _check(self, pending: list[tuple[TestRecord, bytes]]) -> None:
        """Set each record's verdict (and its detail, evidence and output head when it failed)."""
        raise NotImplementedError


class PendingChecks(BatchedChecks):
    """The problem's checker on the outputs, in batches."""

    def __init__(self, problem: PreparedProblem, ctx: JudgeContext) -> None:
        super().__init__(ctx)
        self._problem, self._ctx = problem, ctx

    def _check(self, pending: list[tuple[TestRecord, bytes]]) -> None:
        checked = check_outputs([(record.name, output) for record, output in pending], self._problem, self._ctx)
        for (record, output), (verdict, detail, failed) in zip(pending, checked, strict=True):
            record.verdict, record.detail = verdict, detail
            if failed:
                self._blame_the_output(record.name, detail)
                record.evidence = (f"{detail}, which accepts the original's answer to that test: the output is what "
                                   "it failed on")
            elif verdict == Verdict.WRONG_ANSWER:
                record.evidence = "the problem's checker rejected the output"
            if verdict != Verdict.PASSED:
                record.output_head, record.output_more = output[:HEAD_BYTES], len(output) > HEAD_BYTES

    def _blame_the_output(self, name: str, failure: str) -> None:
        """The checker failed on a revision's output to test ``name``: unless it also fails on the original's
        own answer there (the problem is then invalid: ``ProblemError``), the output is to blame."""
        answer = self._problem.reference.answer_path(name).read_bytes()
        if check_output(name, answer, self._problem, self._ctx).verdict != Verdict.PASSED:
            raise ProblemError(ProblemErrorKind.CHECKER_REJECTS_REFERENCE,
                               f"the checker does not accept the original's own answer to test {name} ({failure})")


def run_tests(program: CompiledProgram, problem: PreparedProblem, ctx: JudgeContext,
              checks: OutputChecks | None = None) -> list[TestRecord]:
    """Every reference test in order, each in a box of its own; none starts after the first (confirmed)
    time limit. The outputs of runs that ended normally are judged by ``checks``: by default the
    problem's checker, in batches (``PendingChecks``)."""
    checks = checks if checks is not None else PendingChecks(problem, ctx)
    stop = threading.Event()

    def one(test: ReferenceTest) -> TestRecord:
        limit = time_limit_s(test, ctx)
        if stop.is_set():
            return skipped_record(test, limit)
        record, output = run_one_test(program, test, limit, problem, ctx)
        if is_borderline_time_limit(record):
            record, output = run_one_test(program, test, limit, problem, ctx)
        if record.verdict == Verdict.TIME_LIMIT:
            stop.set()
        if output is not None:
            checks.add(record, output)
        return record

    records = ctx.map(one, problem.reference.tests)
    checks.finish()
    return records


def is_borderline_time_limit(record: TestRecord) -> bool:
    """A time limit that must repeat to count, since a busy host can cause it: the wall-clock cap
    (little CPU used), or a run that ended by itself just past its limit (RLIMIT_CPU has whole
    seconds). The kernel's share of a run varies with the host's load: a Java stack overflow
    takes 0.4 to 1.5 CPU-s here, most of it page faults."""
    if record.verdict != Verdict.TIME_LIMIT:
        return False
    return record.cpu_s < CPU_USED_SHARE * record.time_limit_s or record.signal not in CPU_KILL_SIGNALS


def skipped_record(test: ReferenceTest, limit_s: float) -> TestRecord:
    return TestRecord(name=test.name, verdict=None, time_limit_s=limit_s, detail="skipped after a time limit",
                      evidence="not run: an earlier test reached its time limit")


def run_one_test(
    program: CompiledProgram, test: ReferenceTest, limit_s: float, problem: PreparedProblem, ctx: JudgeContext
) -> tuple[TestRecord, bytes | None]:
    """A test's run: its record, and its output when the run ended normally (the record's verdict is
    the checker's, still to come), else the run's verdict is set."""
    result = ctx.run(
        program.argv(ctx.limits.memory_mb),
        limits=test_run_limits(program, limit_s, ctx),
        stdin=problem.tests.input_path(test.name),
        mounts=[program.mount()],
        env=program.env(),
    )
    return judged_run(result, program, test, limit_s, ctx)


def judged_run(result: RunResult, program: CompiledProgram, test: ReferenceTest, limit_s: float, ctx: JudgeContext
               ) -> tuple[TestRecord, bytes | None]:
    """A test's record from its run, and the run's output when it ended normally (to check)."""
    memory = result.memory_peak_mb if result.memory_peak_mb is not None else result.peak_rss_mb
    record = TestRecord(name=test.name, verdict=None, time_limit_s=limit_s, wall_s=result.wall_s, cpu_s=result.cpu_s,
                        exit_code=result.exit_code, signal=result.signal, peak_rss_mb=memory)
    failure, evidence = classify_run(result, limit_s, ctx.limits, program.language)
    if failure is None:
        return record, result.stdout
    record.verdict, record.detail, record.evidence = failure, stderr_tail(result), evidence
    record.output_head, record.output_more = result.stdout[:HEAD_BYTES], len(result.stdout) > HEAD_BYTES
    return record, None


def classify_run(result: RunResult, limit_s: float, limits: TestLimits, language: Language
                 ) -> tuple[Verdict | None, str]:
    """The verdict of a run that did not end normally and the system's facts that decide it (the
    kernel's CPU time, signals and memory counts, our own count of its output), else None (its
    output gets checked)."""
    # RLIMIT_CPU has whole seconds; the rusage total also counts every process of the run.
    if result.timed_out or result.cpu_s > limit_s:
        if result.signal in CPU_KILL_SIGNALS and result.cpu_s >= CPU_USED_SHARE * limit_s:
            how = f"RLIMIT_CPU ended it (signal {signal_name(result.signal)})"
        elif result.cpu_s > limit_s:
            how = "it ended by itself"
        else:
            how = f"the wall-clock cap ended it after {result.wall_s:.1f} s"
        return Verdict.TIME_LIMIT, f"{how} with {result.cpu_s:.2f} CPU-s used, the limit {limit_s:.2f} s"
    if result.output_exceeded:
        return Verdict.OUTPUT_LIMIT, f"more than {limits.output_mb} MiB of output"
    if (memory := memory_evidence(result, limits.memory_mb, language)) is not None:
        return Verdict.MEMORY_LIMIT, memory
    if result.exit_code != 0:
        how = f"exit {result.exit_code}" if result.signal is None else f"signal {signal_name(result.signal)}"
        return Verdict.RUNTIME_ERROR, how
    return None, ""


def signal_name(number: int | None) -> str:
    try:
        return f"{number} ({signal.Signals(number or 0).name})"
    except ValueError:
        return str(number)


def decide_verdict(records: list[TestRecord]) -> tuple[Verdict, str | None]:
    """The first failing test in test order decides."""
    for record in records:
        if record.verdict != Verdict.PASSED:
            verdict = record.verdict or Verdict.TIME_LIMIT
            return verdict, f"test {record.name}: {record.detail}".strip()[:DETAIL_CAP]
    return Verdict.PASSED, None
