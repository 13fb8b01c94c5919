"""Judging a CodeContests-O solution on its problem's given tests (docs/tasks.md, "How a solution is judged").

Per pipeline row, on a validation worker's warm state (sandbox, caches, toolchain):

1. the solution is the row's given code, or extracted from the response as LintEval's revisions
   are (``prompt/extract.py``: the last block fenced as the language);
2. the problem (cached per worker): its tests, by key from the content cache (``tests.py``); its
   checker compiled once per content (the row's testlib checker, else the built-in token
   comparison ``checkers/tokens.cpp``); in the strict profile the checker is first run on every
   expected answer: one it rejects or crashes on makes every row of the problem
   ``invalid_problem`` naming the test (a checker that does not compile: naming the field), never
   an ``infra_error`` retried forever;
3. the solution is compiled once (``compile_program``) and run on every test through the shared
   judge (``run.judged_tests``: the runs, limits, verdicts and first failure of LintEval's
   revisions), each test's limits the problem's (``limits.py``): CPU time in the strict profile,
   20 s of wall clock in compat (``compat.py``);
4. each output that ended normally is judged by ``GivenChecks``: strict, the checker decides (a
   checker failing on an output that it accepted as an expected answer is the output's fault:
   ``wrong_answer``, with its message); compat, the harness's line comparison, else the checker's exit 0.

``judge_solution`` is the same judgement for one solution outside the pipeline (with each test's
outcome in ``JudgeResult.tests``): what ``linteval-ray suite`` (issue 39) builds on.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from linteval_ray.languages.registry import testlib_language
from linteval_ray.prompt.extract import Extraction, ExtractionFailure, extract
from linteval_ray.schema import ResultRow, Status, Verdict
from linteval_ray.schema.record import to_unicode
from linteval_ray.schema.result import Limits, Timings
from linteval_ray.schema.rows import generation_facts
from linteval_ray.tasks.codecontests_o.compat import WALL_GRACE_S, WALL_S, compiled_as, harness_accepts
from linteval_ray.tasks.codecontests_o.options import Profile
from linteval_ray.tasks.codecontests_o.record import TASK_NAME, CodeContestsRecord
from linteval_ray.tasks.codecontests_o.tests import TestsMissing, given_problem
from linteval_ray.validate.audit import audited
from linteval_ray.validate.judge.check import check_outputs
from linteval_ray.validate.judge.compile import CompiledProgram, compile_cached, compile_program
from linteval_ray.validate.judge.context import JudgeContext
from linteval_ray.validate.judge.failure import HEAD_BYTES
from linteval_ray.validate.judge.problem import PreparedProblem
from linteval_ray.validate.judge.records import TestRecord
from linteval_ray.validate.judge.run import Audit, BatchedChecks, JudgeResult, in_words, judged_tests, same_judgement
from linteval_ray.validate.sanitize import replace_host_paths, sanitize
from linteval_ray.validate.scratch import work_dir

if TYPE_CHECKING:
    from linteval_ray.validate.engine import Validator

log = logging.getLogger(__name__)

BUILTIN_CHECKER = Path(__file__).with_name("checkers") / "tokens.cpp"
ERROR_CAP = 2000
TOKENS_REJECTED = "the token comparison (the problem has no checker) rejected the output"
CHECKER_REJECTED = "the problem's checker rejected the output"
CHECKER_FAILED = "the problem's checker failed on the output (it accepts every expected answer)"
HARNESS_REJECTED = "the harness's line comparison rejected the output"
HARNESS_AND_CHECKER = "the harness's line comparison rejected the output, and the problem's checker did not exit 0"


class ProblemInvalid(Exception):
    """The problem cannot judge any solution (its checker); every row of it is ``invalid_problem``."""


@dataclasses.dataclass(frozen=True)
class Problem:
    """A problem as its solutions are judged: the tests and checker, the context with its limits,
    and whether the checker is the row's own (not the built-in comparison)."""

    prepared: PreparedProblem
    ctx: JudgeContext
    own_checker: bool


def problem_context(ctx: JudgeContext, record: CodeContestsRecord) -> JudgeContext:
    """``ctx`` with the problem's limits: every test's CPU time and memory; in compat, the harness's
    20 s, as CPU time (RLIMIT_CPU ends a program that computes at 20 s, with one run) and a wall
    clock a second later (a program that waits, or is starved, ends there)."""
    limits = ctx.limits.model_copy(update={"time_floor_s": record.time_limit_s, "memory_mb": record.memory_mb})
    compat = record.judge == Profile.COMPAT
    return dataclasses.replace(ctx, limits=limits, wall_cap_s=WALL_S + WALL_GRACE_S if compat else None)


class Problems:
    """Problems prepared on one worker (their checkers compiled, verified), by what decides them."""

    KEPT = 64  # problems held at once (rows of a batch mostly share a few)

    def __init__(self, ctx: JudgeContext) -> None:
        self._ctx = ctx
        self._verdicts: dict[tuple[str, str], str | None] = {}  # (checker, tests) -> why invalid, or None
        self._held: dict[str, Problem] = {}
        self._lock = threading.Lock()

    def get(self, record: CodeContestsRecord) -> Problem:
        """The problem of ``record``; ``ProblemInvalid`` or ``TestsMissing`` when there is none."""
        memo = record.model_dump_json(include={"tests_key", "checker", "time_limit_s", "memory_mb", "judge"})
        with self._lock:
            held = self._held.get(memo)
        if held is not None:
            return held
        problem = self._prepare(record)
        with self._lock:
            if len(self._held) >= self.KEPT:
                self._held.pop(next(iter(self._held)))
            self._held[memo] = problem
        return problem

    def _prepare(self, record: CodeContestsRecord) -> Problem:
        ctx = problem_context(self._ctx, record)
        compat = record.judge == Profile.COMPAT
        checker, own = self._checker(record, ctx, compat)
        prepared = given_problem(record.tests_key, checker, ctx.cache)
        if not compat:
            self._verify(record, prepared, ctx)
        return Problem(prepared=prepared, ctx=ctx, own_checker=own)

    def _checker(self, record: CodeContestsRecord, ctx: JudgeContext, compat: bool) -> tuple[CompiledProgram, bool]:
        """The compiled checker and whether it is the row's (compat: a checker that does not compile
        is no checker, as the harness's would reject every output; strict: the problem is invalid)."""
        if record.checker is not None:
            outcome = compile_cached(testlib_language().name, record.checker, ctx, with_testlib=True)
            if outcome.program is not None:
                return outcome.program, True
            if outcome.interrupted:  # the machine's load, not the checker: retried by a rerun
                raise RuntimeError(f"compiling the checker of {record.problem_id} was interrupted: {outcome.error}")
            if not compat:
                raise ProblemInvalid(f"checker_compile_error: field 'checker' of problem {record.problem_id!r} does "
                                     f"not compile: {outcome.error or ''}")
        builtin = compile_cached(testlib_language().name, BUILTIN_CHECKER.read_text(), ctx, with_testlib=True)
        if builtin.program is None:
            raise RuntimeError(f"the built-in token comparison does not compile: {builtin.error}")
        return builtin.program, False

    def _verify(self, record: CodeContestsRecord, problem: PreparedProblem, ctx: JudgeContext) -> None:
        """The checker must accept every expected answer as an output (cached when it does)."""
        memo = (problem.checker.artifact_dir.name, problem.tests.key)
        with self._lock:
            known = memo in self._verdicts
            why = self._verdicts.get(memo)
        if not known:
            key = ctx.cache.key("given-checker-check", checker=memo[0], tests=memo[1])
            why = None if ctx.cache.get_json(key) is not None else self._self_check(problem, ctx)
            if why is None:
                ctx.cache.put_json(key, {"ok": True})
            with self._lock:
                self._verdicts[memo] = why
        if why is not None:
            raise ProblemInvalid(f"checker_rejects_expected: problem {record.problem_id!r}: {why}")

    @staticmethod
    def _self_check(problem: PreparedProblem, ctx: JudgeContext) -> str | None:
        answers = [(name, problem.reference.answer_path(name).read_bytes()) for name in problem.tests.names]
        for (name, _), checked in zip(answers, check_outputs(answers, problem, ctx), strict=True):
            if checked.verdict != Verdict.PASSED:
                how = "fails" if checked.failed else f"gives {checked.verdict.value}"
                return f"on test {name} its checker {how} on the expected answer: {checked.message}"[:ERROR_CAP]
        return None


class GivenChecks(BatchedChecks):
    """The ``OutputChecks`` of given tests (see the module docstring, step 4): outputs gathered up
    to the same budget as the checker's batches, then judged together."""

    def __init__(self, problem: Problem, compat: bool) -> None:
        super().__init__(problem.ctx)
        self._problem, self._compat = problem, compat

    def _check(self, pending: list[tuple[TestRecord, bytes]]) -> None:
        if self._compat:
            pending = self._by_harness_comparison(pending)
            if not self._problem.own_checker:
                for record, output in pending:
                    _reject(record, output, "", HARNESS_REJECTED)
                return
        if not pending:
            return
        prepared, ctx = self._problem.prepared, self._problem.ctx
        checked = check_outputs([(record.name, output) for record, output in pending], prepared, ctx)
        for (record, output), (verdict, detail, failed) in zip(pending, checked, strict=True):
            if verdict == Verdict.PASSED:
                record.verdict = Verdict.PASSED
            elif self._compat:
                _reject(record, output, detail, HARNESS_AND_CHECKER)
            elif failed:  # it accepts every expected answer (Problems._verify): the output is to blame
                _reject(record, output, detail, CHECKER_FAILED)
            else:
                _reject(record, output, detail, CHECKER_REJECTED if self._problem.own_checker else TOKENS_REJECTED)

    def _by_harness_comparison(self, pending: list[tuple[TestRecord, bytes]]) -> list[tuple[TestRecord, bytes]]:
        """Pass the outputs the harness's line comparison accepts; the others, still undecided."""
        undecided = []
        for record, output in pending:
            expected = self._problem.prepared.reference.answer_path(record.name).read_bytes()
            if harness_accepts(expected.decode("utf-8", "replace"), output.decode("utf-8", "replace")):
                record.verdict = Verdict.PASSED
            else:
                undecided.append((record, output))
        return undecided


def _reject(record: TestRecord, output: bytes, detail: str, evidence: str) -> None:
    record.verdict, record.detail, record.evidence = Verdict.WRONG_ANSWER, detail, evidence
    record.output_head, record.output_more = output[:HEAD_BYTES], len(output) > HEAD_BYTES


def judge_solution(language: str, code: str, problem: Problem, compat: bool, *, audit: bool = False) -> JudgeResult:
    """Compile ``code`` and judge it on every test of ``problem`` (each test's outcome in
    ``tests``); with ``audit``, judge it again by the reference path and return that, with whether
    the two agreed (``JudgeResult.audit``)."""
    ctx = problem.ctx
    with work_dir(ctx.scratch, "solution-") as tmp:
        outcome = compile_program(compiled_as(language) if compat else language, code, ctx, Path(tmp) / "prog")
        count = len(problem.prepared.reference.tests)
        if outcome.program is None:
            return JudgeResult(compile_ok=False, verdict=Verdict.COMPILE_ERROR, detail=outcome.error,
                               tests_generated=count, tests_failed=count, compile_s=outcome.seconds)
        result = judged_tests(outcome.program, problem.prepared, ctx, GivenChecks(problem, compat))
        if audit and ctx.has_reference:  # judged again in boxes built the reference way
            fast = result
            reference = dataclasses.replace(problem, ctx=ctx.reference())
            result = judged_tests(outcome.program, problem.prepared, reference.ctx, GivenChecks(reference, compat))
            result.audit = _agreement(fast, result)
            result.tests_s += fast.tests_s
    return result.model_copy(update={"compile_s": outcome.seconds, "tests_generated": count})


def _agreement(fast: JudgeResult, reference: JudgeResult) -> Audit:
    return Audit(agreed=same_judgement(fast, reference), fast=in_words(fast))


class CodeContestsEvaluator:
    """The task's ``Evaluator``: one result row per pipeline row, on ``worker``'s warm state."""

    def __init__(self, worker: Validator) -> None:
        self._worker = worker
        self._problems = Problems(worker.judge)

    def evaluate(self, rows: list[dict[str, Any]]) -> list[ResultRow]:
        return [self._evaluate(row) for row in rows]

    def _evaluate(self, row: dict[str, Any]) -> ResultRow:
        draw = int(row.get("draw") or 0)
        try:
            record = CodeContestsRecord.model_validate_json(row["record_json"])
        except Exception as exc:  # noqa: BLE001 - checked where it was read: a failure here is ours
            sample_id = row.get("sample_id") or "?"
            return ResultRow(sample_id=sample_id, draw=draw, row_id=ResultRow.make_row_id(sample_id, draw),
                             task=TASK_NAME, status=Status.INFRA_ERROR, verdict=Verdict.INFRA_ERROR,
                             error=_cap(f"record unreadable: {exc}"))
        result = self._start(row, record, draw)
        timings = Timings()
        try:
            self._judge(row, record, result, timings)
        except Exception as exc:
            log.exception("judging %s failed", result.row_id)
            _fail(result, Status.INFRA_ERROR, f"{type(exc).__name__}: {exc}")
        timings.total_s = timings.prepare_s + timings.compile_s + timings.tests_s
        result.timings = timings
        self._sanitize(result)
        return result

    def _start(self, row: dict[str, Any], record: CodeContestsRecord, draw: int) -> ResultRow:
        worker = self._worker
        return ResultRow(
            sample_id=record.sample_id, draw=draw, row_id=ResultRow.make_row_id(record.sample_id, draw),
            problem_id=record.problem_id, language=record.language, task=TASK_NAME, facets=record.facets or None,
            status=Status.EVALUATED, model=row.get("model"), raw_response=_text(row.get("raw_response")),
            tokens_used=row.get("tokens_used"), **generation_facts(row), toolchain_id=worker.toolchain.toolchain_id,
            limits=Limits(time_floor_s=record.time_limit_s, time_factor=0.0, memory_mb=record.memory_mb,
                          output_mb=worker.config.limits.output_mb),
        )

    def _judge(self, row: dict[str, Any], record: CodeContestsRecord, result: ResultRow, timings: Timings) -> None:
        if row.get("generation_error"):
            _fail(result, Status.GENERATION_ERROR, str(row["generation_error"]))
            return
        extraction = _solution(row, record)
        result.revised_code, result.extraction_ok = extraction.code, extraction.code is not None
        if extraction.code is None:
            _extraction_failed(result, str(extraction.failure))
            return
        started = time.monotonic()
        try:
            problem = self._problems.get(record)
        except ProblemInvalid as exc:
            _fail(result, Status.INVALID_PROBLEM, str(exc))
            return
        except TestsMissing:
            _fail(result, Status.INFRA_ERROR, f"the tests of problem {record.problem_id!r} ({record.tests_key}) are "
                  "in no cache tier this worker reads: a run on several nodes needs a shared cache tier "
                  "(validation.cache_url, or an output on object storage)")
            return
        finally:
            timings.prepare_s = time.monotonic() - started
        compat = record.judge == Profile.COMPAT
        audit = audited(result.row_id, self._worker.config.audit_fraction)
        judged = judge_solution(record.language, extraction.code, problem, compat, audit=audit)
        if judged.audit is not None:
            self._worker.audit.count(result.row_id, judged.audit.agreed)
            if not judged.audit.agreed:
                log.warning("audit: %s: the fast path judged %s, the reference path %s (recorded)",
                            result.row_id, judged.audit.fast, in_words(judged))
        timings.compile_s, timings.tests_s = judged.compile_s, judged.tests_s
        if judged.verdict == Verdict.COMPILE_ERROR and extraction.kind == "bare":
            _extraction_failed(result, f"{ExtractionFailure.NO_CODE_BLOCK}: the unfenced answer does not compile")
            return
        result.compile_ok, result.verdict, result.pass_at_1 = judged.compile_ok, judged.verdict, judged.pass_at_1
        result.validation_error = _cap(judged.validation_error)
        result.tests_generated, result.tests_passed = judged.tests_generated, judged.tests_passed
        result.tests_failed, result.first_failure = judged.tests_failed, judged.first_failure

    def _sanitize(self, result: ResultRow) -> None:
        """Program text in stored fields: terminal-safe, host paths as placeholders (as LintEval's rows)."""
        paths = self._worker.host_paths
        result.error = _cap(None if result.error is None else sanitize(result.error, paths))
        result.validation_error = _cap(None if result.validation_error is None else
                                       sanitize(result.validation_error, paths))
        if (failure := result.first_failure) is not None:
            failure.message = replace_host_paths(failure.message, paths)
            if failure.output_excerpt is not None:
                failure.output_excerpt = replace_host_paths(failure.output_excerpt, paths)


def _solution(row: dict[str, Any], record: CodeContestsRecord) -> Extraction:
    """The code to judge: given directly, or extracted from the model's response."""
    if row.get("revised_code"):
        return Extraction.found(to_unicode(row["revised_code"]), "given")
    if row.get("raw_response"):
        return extract(to_unicode(row["raw_response"]), record.language)
    return Extraction.failed(ExtractionFailure.EMPTY)


def _extraction_failed(result: ResultRow, detail: str) -> None:
    result.revised_code, result.extraction_ok, result.compile_ok = None, False, None
    result.pass_at_1, result.verdict = False, Verdict.EXTRACTION_FAILED
    result.validation_error = _cap(f"{Verdict.EXTRACTION_FAILED}: {detail}")


def _fail(result: ResultRow, status: Status, error: str) -> None:
    result.status, result.error, result.pass_at_1 = status, _cap(error), False
    if status == Status.INFRA_ERROR:
        result.verdict, result.validation_error = Verdict.INFRA_ERROR, _cap(f"infra_error: {error}")


def _text(text: str | None) -> str | None:
    return None if text is None else to_unicode(text)


def _cap(text: str | None) -> str | None:
    text = _text(text)
    return text if text is None or len(text) <= ERROR_CAP else text[:ERROR_CAP] + "…"
