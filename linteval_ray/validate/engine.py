"""The validation engine: one generated revision in, one result row out.

``Validator`` holds a worker's warm state (toolchain, linters, sandbox, content
cache) and evaluates batches: linting is batched per language (one PMD JVM for
a batch), judging is per row. Whatever goes wrong with one row becomes that
row's status; nothing escapes ``evaluate_batch`` as an exception.
"""

from __future__ import annotations

import functools
import logging
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from linteval_ray.config import ValidationConfig
from linteval_ray.languages.registry import language as language_spec
from linteval_ray.prompt.extract import Extraction, ExtractionFailure, extract
from linteval_ray.schema import Language, LintEvalRecord, LintMessage, ResultRow, Status, Verdict
from linteval_ray.schema.record import to_unicode
from linteval_ray.schema.result import Limits, LintFailure, Timings
from linteval_ray.schema.rows import InputRow, generation_facts, record_of
from linteval_ray.schema.task import LINTEVAL_TASK, task_of_record_json
from linteval_ray.store.fs import ObjectStore
from linteval_ray.tasks.base import Evaluator
from linteval_ray.tasks.registry import task as task_spec
from linteval_ray.toolchain import Toolchain
from linteval_ray.validate.audit import AuditStats, audited
from linteval_ray.validate.cache import ContentCache, default_cache_dir
from linteval_ray.validate.canary import OUT_OF_SERVICE, CanaryCheck, check_canaries
from linteval_ray.validate.judge import (
    JudgeContext,
    JudgeResult,
    PreparedProblem,
    ProblemError,
    judge_revision,
    prepare_problem,
)
from linteval_ray.validate.judge.run import in_words, program_broke_the_sandbox
from linteval_ray.validate.lint import LintError, Linters, LintOutcome
from linteval_ray.validate.lint.profiles import load_profile
from linteval_ray.validate.lint.suppressions import neutralize_added_suppressions
from linteval_ray.validate.sample_metrics import lint_agreement, sample_metrics
from linteval_ray.validate.sandbox import SandboxError, make_sandbox
from linteval_ray.validate.sanitize import host_paths, replace_host_paths, sanitize
from linteval_ray.validate.scratch import ScratchRoot

log = logging.getLogger(__name__)

ERROR_CAP = 2000


class Validator:
    """Lints, compiles and tests revisions; one per validation worker."""

    def __init__(self, config: ValidationConfig, store: ObjectStore | None = None,
                 toolchain: Toolchain | None = None):
        self.config = config
        self.toolchain = toolchain or Toolchain.discover()
        jobs = max(1, round(config.pool.num_cpus))
        self.sandbox = make_sandbox(config.sandbox, allow_unsafe=config.allow_unsafe_sandbox,
                                    toolchain=self.toolchain)
        self.linters = Linters(self.toolchain, profile=load_profile(config.lint_profile), jobs=jobs,
                               timeout_s=config.limits.lint_timeout_s, cpu_s=config.limits.lint_cpu_s,
                               memory_mb=config.limits.lint_memory_mb, sandbox=self.sandbox)
        self.cache = ContentCache(config.cache_url, default_cache_dir() / "cache", store)
        self._scratch_root = ScratchRoot()
        self._scratch = self._scratch_root.path
        self.judge = JudgeContext(sandbox=self.sandbox, toolchain=self.toolchain, cache=self.cache,
                                  scratch=self._scratch, limits=config.limits, jobs=jobs,
                                  python=config.python)
        self._batches = 0
        self._task_evaluators: dict[str, Evaluator] = {}
        self.audit = AuditStats()  # revisions judged by both paths (validation.audit_fraction)
        self.out_of_service: str | None = None  # why a canary says this worker must not score
        self._checking_canaries = False
        # Program text in rows names these as placeholders (sanitize.py).
        self.host_paths = host_paths({self._scratch: "<scratch>", self.cache.local_dir: "<cache>",
                                      default_cache_dir(): "<cache>", **self.toolchain.placeholders()})
        self.limits = Limits(time_floor_s=config.limits.time_floor_s, time_factor=config.limits.time_factor,
                             memory_mb=config.limits.memory_mb, output_mb=config.limits.output_mb)

    def close(self) -> None:
        """Stop the linters, release the sandbox, remove the scratch dir; never raises."""
        for step in (self.linters.close, self.sandbox.close):
            try:
                step()
            except Exception:
                log.exception("closing the validator: %s failed", step.__qualname__)
        self._scratch_root.close()

    # -- batches ---------------------------------------------------------------------------------

    def evaluate_batch(self, rows: list[dict[str, Any]]) -> list[ResultRow]:
        """Result rows for pipeline rows (``record_json`` + the generation columns), in order;
        all ``infra_error`` once a canary got a wrong verdict on this worker (canary.py)."""
        self._check_canaries()
        if self.out_of_service is not None:
            return [self._out_of_service_row(row) for row in rows]
        return self._evaluate(rows)

    def _check_canaries(self) -> None:
        every = self.config.canary_every_batches
        if every and self.out_of_service is None and self._batches % every == 0:
            self.out_of_service = self._canaries().wrong
        self._batches += 1

    def _canaries(self) -> CanaryCheck:
        self._checking_canaries = True
        try:
            check = check_canaries(self._evaluate)
        finally:
            self._checking_canaries = False
        if check.wrong is not None:
            log.error("validation worker out of service: %s", check.wrong)
        return check

    def _out_of_service_row(self, row: dict[str, Any]) -> ResultRow:
        w = _Work.start(row, self)
        if w.result.status == Status.EVALUATED:
            w.fail(Status.INFRA_ERROR, f"{OUT_OF_SERVICE}{self.out_of_service}")
        w.finish(self)
        return w.result

    def _evaluate(self, rows: list[dict[str, Any]]) -> list[ResultRow]:
        """Each row judged by its task (``linteval_ray/tasks/``): LintEval's here, another task's by
        its evaluator on this worker's warm state; in order."""
        by_task: dict[str, list[int]] = defaultdict(list)
        for index, row in enumerate(rows):
            by_task[task_of_record_json(str(row.get("record_json") or ""))].append(index)
        results: list[ResultRow | None] = [None] * len(rows)
        for name, indexes in by_task.items():
            chosen = [rows[i] for i in indexes]
            judged = (self.evaluate_linteval(chosen) if name == LINTEVAL_TASK
                      else self.task_evaluator(name).evaluate(chosen))
            for index, result in zip(indexes, judged, strict=True):
                results[index] = result
        return [result for result in results if result is not None]

    def task_evaluator(self, name: str) -> Evaluator:
        """Task ``name``'s judging on this worker, built on first use."""
        if name not in self._task_evaluators:
            self._task_evaluators[name] = task_spec(name).evaluator(self)
        return self._task_evaluators[name]

    def evaluate_linteval(self, rows: list[dict[str, Any]]) -> list[ResultRow]:
        """LintEval's rows: lint (batched per language), judge, score."""
        work = [_Work.start(row, self) for row in rows]
        _guarded(work, lambda: self._lint([w for w in work if w.record is not None]))
        for w in work:
            if w.judgeable and self.out_of_service is not None:  # found out while judging this batch
                w.fail(Status.INFRA_ERROR, f"{OUT_OF_SERVICE}{self.out_of_service}")
            elif w.judgeable:
                _guarded([w], functools.partial(self._judge, w))
        for w in work:
            w.finish(self)
        return [w.result for w in work]

    def evaluate(self, record: LintEvalRecord, generation: dict[str, Any], draw: int = 0) -> ResultRow:
        """One record and its generation columns (``raw_response``, ``revised_code``, ...)."""
        return self.evaluate_batch([{**InputRow.of(record, draw).model_dump(), **generation}])[0]

    # -- steps -----------------------------------------------------------------------------------

    def _lint(self, work: list[_Work]) -> None:
        """Originals (cached by content: they do not depend on the model) and revisions, in one
        linter call per language, so a batch costs one linter start (one PMD JVM)."""
        jobs: dict[Language, list[tuple[_Work, str]]] = defaultdict(list)
        for w in work:
            w.original_messages = self.cached_original_lint(w.parsed)
            if w.original_messages is None:
                jobs[w.parsed.language].append((w, "original"))
            if w.judgeable:
                jobs[w.parsed.language].append((w, "revision"))
        for language, items in jobs.items():
            started = time.monotonic()
            codes = [w.parsed.code if side == "original" else self._scored_revision(w) for w, side in items]
            outcomes = self.linters.lint_each(language, codes)
            share = (time.monotonic() - started) / len(items)
            for (w, side), outcome in zip(items, outcomes, strict=True):  # one outcome per code
                w.timings.lint_s += share
                if isinstance(outcome, LintError):
                    w.lint_failed(side, outcome)  # recorded; the row is still judged
                elif side == "original":
                    w.original_messages = outcome
                    self.cache_original_lint(w.parsed, outcome)
                else:
                    w.revised_messages = outcome

    def _scored_revision(self, w: _Work) -> str:
        """The revision as it is linted for scoring: suppressions it added hide nothing (unless
        ``lint_as_written``); the program itself is judged as written."""
        scored = neutralize_added_suppressions(w.parsed.language, w.parsed.code, w.revised_code or "")
        w.result.suppressions_added = scored.count
        return (w.revised_code or "") if self.config.lint_as_written else scored.code

    def lint_originals(self, records: list[LintEvalRecord]) -> list[LintOutcome]:
        """The originals' alerts, from the content cache or one linter call per language (what
        ``calibrate`` needs; a run after it finds every original already linted)."""
        outcomes: list[LintOutcome | None] = [self.cached_original_lint(r) for r in records]
        todo: dict[Language, list[int]] = defaultdict(list)
        for index, outcome in enumerate(outcomes):
            if outcome is None:
                todo[records[index].language].append(index)
        for language, indexes in todo.items():
            linted = self.linters.lint_each(language, [records[i].code for i in indexes])
            for index, outcome in zip(indexes, linted, strict=True):  # one outcome per code
                outcomes[index] = outcome
                if not isinstance(outcome, LintError):
                    self.cache_original_lint(records[index], outcome)
        return [o for o in outcomes if o is not None]

    def cached_original_lint(self, record: LintEvalRecord) -> list[LintMessage] | None:
        cached = self.cache.get_json(self._lint_key(record))
        return None if cached is None else [LintMessage.model_validate(m) for m in cached]

    def cache_original_lint(self, record: LintEvalRecord, messages: list[LintMessage]) -> None:
        self.cache.put_json(self._lint_key(record), [m.model_dump(mode="json") for m in messages])

    def _lint_key(self, record: LintEvalRecord) -> str:
        return ContentCache.key("lint", language=record.language, code=record.code,
                                toolchain=self.toolchain.language_id(record.language),
                                config=self.linters.config_id(record.language))

    def _judge(self, w: _Work) -> None:
        assert w.revised_code is not None, "only judgeable rows (they have a revision) are judged"
        started = time.monotonic()
        try:
            problem = prepare_problem(w.parsed, self.judge)
        except ProblemError as exc:
            w.fail(Status.INVALID_PROBLEM, str(exc))
            return
        finally:
            w.timings.prepare_s += time.monotonic() - started
        audit = audited(w.result.row_id, self.config.audit_fraction)
        try:
            outcome = self._judged_revision(w, problem, audit)
        except ProblemError as exc:  # found while judging: its checker fails on one of the original's answers
            w.fail(Status.INVALID_PROBLEM, str(exc))
            return
        if outcome.audit is not None:
            self.audit.count(w.result.row_id, outcome.audit.agreed)
            if not outcome.audit.agreed:
                log.warning("audit: %s: the box server's boxes judged %s, bubblewrap's %s (recorded)",
                            w.result.row_id, outcome.audit.fast, in_words(outcome))
        if outcome.verdict == Verdict.COMPILE_ERROR and w.extraction_kind == "bare":
            # No cheap parser tells C++/Java prose from code: an unfenced answer is code if it compiles.
            w.extraction_failed(f"{ExtractionFailure.NO_CODE_BLOCK}: the unfenced answer does not compile")
            w.timings.compile_s += outcome.compile_s
            return
        w.timings.compile_s += outcome.compile_s
        w.timings.tests_s += outcome.tests_s
        r = w.result
        r.compile_ok = outcome.compile_ok
        r.verdict = outcome.verdict
        r.pass_at_1 = outcome.pass_at_1
        r.validation_error = _cap(outcome.validation_error)
        r.tests_generated = outcome.tests_generated
        r.tests_passed = outcome.tests_passed
        r.tests_failed = outcome.tests_failed
        r.tests_dropped = outcome.tests_dropped
        r.first_failure = outcome.first_failure

    def _judged_revision(self, w: _Work, problem: PreparedProblem, audit: bool) -> JudgeResult:
        """The revision's judgement. Our sandbox failing on it (``SandboxError``) is an infra error only
        while the canaries cannot show this worker judges well: if they pass, the revision is judged
        again, and a second such failure is the program's (a runtime error, with both failures as its
        evidence): no program can take its own row out of the score by breaking the judge."""
        try:
            return judge_revision(w.parsed.language, w.revised_code or "", problem, self.judge, audit=audit)
        except SandboxError as first:
            if self._checking_canaries:
                raise
            log.warning("%s: the sandbox failed while judging it (%s): the canaries, then once more",
                        w.result.row_id, first)
            canaries = self._canaries()
            if canaries.wrong is not None:
                self.out_of_service = canaries.wrong
            if not canaries.passed:
                raise
            try:
                return judge_revision(w.parsed.language, w.revised_code or "", problem, self.judge, audit=audit)
            except SandboxError as second:
                return program_broke_the_sandbox(first, second)


class _Work:
    """One row in flight: the parsed input, what has been learned so far, the result."""

    def __init__(self, result: ResultRow, record: LintEvalRecord | None, revised_code: str | None):
        self.result = result
        self.record = record
        self.revised_code = revised_code
        self.extraction_kind: str | None = None  # fenced, bare (unfenced text), given (revised_code column)
        self.original_messages: list[LintMessage] | None = None
        self.revised_messages: list[LintMessage] | None = None
        self.timings = Timings()

    @classmethod
    def start(cls, row: dict[str, Any], validator: Validator) -> _Work:
        draw = int(row.get("draw") or 0)
        try:
            record = record_of(row)
        except Exception as exc:  # noqa: BLE001 - a row must never escape: unreadable -> infra_error row
            # the stream checked it where it was read; a failure here is ours
            sample_id = row.get("sample_id") or "?"
            return cls(ResultRow(sample_id=sample_id, draw=draw, row_id=ResultRow.make_row_id(sample_id, draw),
                                 status=Status.INFRA_ERROR, error=_cap(f"record unreadable: {exc}")), None, None)
        result = ResultRow(
            sample_id=record.sample_id, draw=draw, row_id=ResultRow.make_row_id(record.sample_id, draw),
            problem_id=record.problem_id, language=record.language, split=record.split,
            status=Status.EVALUATED, model=row.get("model"), raw_response=_text(row.get("raw_response")),
            tokens_used=row.get("tokens_used"), **generation_facts(row), limits=validator.limits,
            toolchain_id=validator.toolchain.toolchain_id,
        )
        work = cls(result, record, None)
        if row.get("generation_error"):
            work.fail(Status.GENERATION_ERROR, str(row["generation_error"]))
            return work
        extraction = _revision(row, record)
        work.revised_code, work.extraction_kind = extraction.code, extraction.kind
        result.revised_code = work.revised_code
        result.extraction_ok = work.revised_code is not None
        if extraction.failure is not None:
            work.extraction_failed(str(extraction.failure))
        return work

    def extraction_failed(self, detail: str) -> None:
        """No program in the response: judged as the model's failure, never compiled or run."""
        self.revised_code = None
        self.revised_messages = None
        if self.result.lint_error is not None and self.result.lint_error.side == "revision":
            self.result.lint_error = None  # what failed to lint was not a program
        self.result.extraction_ok = False
        self.result.compile_ok = None
        self.result.pass_at_1 = False
        self.result.verdict = Verdict.EXTRACTION_FAILED
        self.result.validation_error = _cap(f"{Verdict.EXTRACTION_FAILED}: {detail}")

    @property
    def parsed(self) -> LintEvalRecord:
        """The record, for the steps that only see rows that have one (lint, judge, scoring)."""
        assert self.record is not None, "a row without a record reached a step that needs it"
        return self.record

    @property
    def judgeable(self) -> bool:
        return self.revised_code is not None and self.result.status == Status.EVALUATED

    def lint_failed(self, side: str, error: LintError) -> None:
        """A linter failed on one side: noted on the row, which is judged all the same (its alert
        metrics stay unset: a missing side is not zero alerts)."""
        reason = _cap(str(error)) or error.tool
        previous = self.result.lint_error
        if previous is not None and previous.side != side:
            side, reason = "both", f"{previous.side}: {previous.reason}; {side}: {reason}"
        self.result.lint_error = LintFailure(side=side, reason=reason)

    def fail(self, status: Status, error: str) -> None:
        self.result.status = status
        self.result.error = _cap(error)
        self.result.pass_at_1 = False
        if status == Status.INFRA_ERROR:
            self.result.verdict = Verdict.INFRA_ERROR
            self.result.validation_error = _cap(f"infra_error: {error}")

    def finish(self, validator: Validator) -> None:
        r = self.result
        r.original_messages = self.original_messages or []
        r.revised_messages = self.revised_messages or []
        if self.original_messages is not None:
            r.lint_agreement = lint_agreement(self.parsed.linter_messages, self.original_messages)
        if (r.status == Status.EVALUATED and self.revised_code is not None and r.lint_error is None
                and self.original_messages is not None and self.revised_messages is not None):
            r.metrics = sample_metrics(self.parsed.code, self.revised_code, self.original_messages,
                                       self.revised_messages, language_spec(self.parsed.language).paper_category)
        t = self.timings  # the row's own seconds, not a share of the batch's wall time
        t.total_s = t.lint_s + t.prepare_s + t.compile_s + t.tests_s
        r.timings = t
        # Last, so every path that put program text here is covered.
        r.error = _cap(_sanitized(r.error, validator.host_paths))
        r.validation_error = _cap(_sanitized(r.validation_error, validator.host_paths))
        if (failure := r.first_failure) is not None:  # its excerpts are escaped already; paths remain
            failure.output_excerpt = _host_paths_out(failure.output_excerpt, validator.host_paths)
            failure.message = replace_host_paths(failure.message, validator.host_paths)


def _guarded(work: list[_Work], step: Callable[[], None]) -> None:
    """Run a step; if it raises, the rows it was for become infra errors (the rest go on)."""
    try:
        step()
    except Exception as exc:
        log.exception("validation step failed")
        for w in work:
            if w.result.status == Status.EVALUATED:
                w.fail(Status.INFRA_ERROR, f"{type(exc).__name__}: {exc}")


def _revision(row: dict[str, Any], record: LintEvalRecord) -> Extraction:
    """The code to judge: given directly, or extracted from the model's response."""
    if row.get("revised_code"):
        return Extraction.found(to_unicode(row["revised_code"]), "given")
    if row.get("raw_response"):
        return extract(to_unicode(row["raw_response"]), record.language)
    return Extraction.failed(ExtractionFailure.EMPTY)


def _text(text: str | None) -> str | None:
    return None if text is None else to_unicode(text)


def _sanitized(text: str | None, paths: dict[str, str]) -> str | None:
    return None if text is None else sanitize(text, paths)


def _host_paths_out(text: str | None, paths: dict[str, str]) -> str | None:
    return None if text is None else replace_host_paths(text, paths)


def _cap(text: str | None) -> str | None:
    text = _text(text)
    return text if text is None or len(text) <= ERROR_CAP else text[:ERROR_CAP] + "…"
