"""Judging units on a validation worker: every solution of a unit, its rows written as the unit's shard.

``JudgeUnits`` is the validation pool's actor: a warm ``Validator`` (sandbox, content cache,
toolchain) whose task judges each solution on its problem (``Task.solution_judge``: CodeContests-O's
given tests; its problems prepared once per worker). Per entry of a unit:

- a pool entry that cannot be judged is its ``invalid_input`` row (the reader's error); so is a
  solution naming a problem the test source does not hold;
- a solution whose problem's test-source row is invalid, or whose problem cannot judge (its checker
  rejects its own expected answers), is ``invalid_problem``;
- any other is compiled once and run on the problem's tests, each in a box of its own; a Python 2
  solution as Python 2.7 (``suite.python2``) and, with ``suite.python2_also_as_python3``, on Python 3
  too (its verdict there in ``as_python3``); an exception is ours: ``infra_error``.

The unit's rows are written as its shard (``units.write_unit``) before the call returns; the stream
carries a summary row per unit to the driver's progress line.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import uuid
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from linteval_ray.config import ValidationConfig
from linteval_ray.pipeline.actor_records import stats_document
from linteval_ray.schema import Status, Verdict
from linteval_ray.schema.result import FirstFailure
from linteval_ray.store.folder import RunFolder
from linteval_ray.suite.config import SuiteSettings
from linteval_ray.suite.index import IndexedProblem
from linteval_ray.suite.pools import BadSolution, Entry, Label, Solution
from linteval_ray.suite.rows import SuiteRow, rows_table
from linteval_ray.suite.source import entry_of
from linteval_ray.suite.units import write_unit
from linteval_ray.tasks.base import JudgedSolution, SolutionJudge, SolutionOptions
from linteval_ray.validate.sanitize import replace_host_paths, sanitize

if TYPE_CHECKING:
    from linteval_ray.validate.engine import Validator

log = logging.getLogger(__name__)

SUMMARY_SCHEMA = pa.schema([("unit", pa.string()), ("statuses", pa.list_(pa.string())),
                            ("accepted", pa.list_(pa.bool_()))])
ERROR_CAP = 2000
PYTHON2, PYTHON3 = "py2", "py3"


class JudgeUnits:
    """The validation pool's actor (see the module docstring)."""

    def __init__(self, validation: ValidationConfig, folder: RunFolder, settings: SuiteSettings) -> None:
        from linteval_ray.validate.engine import Validator

        self._validator: Validator | None = Validator(validation, folder.store)
        self._folder = folder
        self._settings = settings
        self._options = SolutionOptions(stop_at_first_failure=settings.stop_at_first_failure,
                                        cpp_dialects=tuple(settings.cpp_dialects))
        self._judges: dict[str, SolutionJudge] = {}
        self._worker = f"{socket.gethostname()}:{os.getpid()}"
        self._stats_name = f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:8]}.json"

    def __call__(self, batch: pa.Table) -> pa.Table:
        summaries = [self.judge_unit(json.loads(text)) for text in batch.column("payload").to_pylist()]
        validator = self._validator_or_fail()
        self._folder.store.write_atomic(f"{self._folder.cache_stats}/{self._stats_name}",
                                        stats_document(validator.cache.stats_snapshot(), validator.audit))
        return pa.Table.from_pylist(summaries, schema=SUMMARY_SCHEMA)

    def judge_unit(self, unit: dict[str, Any]) -> dict[str, Any]:
        """Judge a unit's entries, write its shard; its summary (statuses, accepted) for the progress line."""
        problems: dict[str, dict[str, Any] | None] = unit["problems"]
        rows = [self.judge_entry(entry_of(data), unit["unit"], problems) for data in unit["entries"]]
        write_unit(self._folder, unit["unit"], rows_table(rows), unit.get("merge_from"))
        return {"unit": unit["unit"], "statuses": [row.status.value for row in rows],
                "accepted": [bool(row.accepted) for row in rows]}

    def judge_entry(self, entry: Entry, unit: str, problems: dict[str, dict[str, Any] | None]) -> SuiteRow:
        row = SuiteRow(solution_id=entry.solution_id, unit=unit, source=entry.source, problem=entry.problem,
                       label=entry.label, language=entry.language, status=Status.EVALUATED, worker=self._worker)
        if isinstance(entry, BadSolution):
            return _not_judged(row, Status.INVALID_INPUT, entry.error)
        problem = problems.get(entry.problem)
        record_json = IndexedProblem(**problem).record_for(entry.language) if problem is not None else None
        if problem is None:
            return _not_judged(row, Status.INVALID_INPUT, f"pool {entry.source}: problem {entry.problem!r}: field "
                               "'name': no test source holds this problem")
        if record_json is None:
            return _not_judged(row, Status.INVALID_PROBLEM, f"problem {entry.problem!r}: its test-source row cannot "
                               f"judge: {problem.get('error')}")
        try:
            self._judge(entry, record_json, row)
        except Exception as exc:
            log.exception("judging %s failed", entry.solution_id)
            row = _not_judged(row, Status.INFRA_ERROR, f"{type(exc).__name__}: {exc}")
        return self._sanitized(row)

    def _judge(self, entry: Solution, record_json: str, row: SuiteRow) -> None:
        language = entry.language
        if language == PYTHON2 and self._settings.python2 == "python3":
            language = PYTHON3
        judged = self._task_judge(record_json).judge(record_json, language, entry.code, self._options)
        _fill(row, judged, entry, self._settings.kept_code_kb * 1024)
        if (row.status == Status.EVALUATED and entry.language == PYTHON2 and judged.judged_as == PYTHON2
                and self._settings.python2_also_as_python3):
            on_python3 = self._task_judge(record_json).judge(record_json, PYTHON3, entry.code, self._options)
            row.as_python3 = on_python3.result.verdict if on_python3.result is not None else None

    def _task_judge(self, record_json: str) -> SolutionJudge:
        from linteval_ray.schema.task import task_of_record_json
        from linteval_ray.tasks.registry import task

        name = task_of_record_json(record_json)
        if name not in self._judges:
            self._judges[name] = task(name).solution_judge(self._validator_or_fail())
        return self._judges[name]

    def _sanitized(self, row: SuiteRow) -> SuiteRow:
        """Program text in stored fields: terminal-safe, host paths as placeholders (as a run's rows)."""
        paths = self._validator_or_fail().host_paths
        row.error = None if row.error is None else _cap(sanitize(row.error, paths))
        if (failure := row.first_failure) is not None:
            failure.message = replace_host_paths(failure.message, paths)
            if failure.output_excerpt is not None:
                failure.output_excerpt = replace_host_paths(failure.output_excerpt, paths)
        return row

    def _validator_or_fail(self) -> Validator:
        if self._validator is None:
            raise RuntimeError("JudgeUnits was closed")
        return self._validator

    def close(self) -> None:
        validator, self._validator = getattr(self, "_validator", None), None
        if validator is not None:
            validator.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # a finalizer must never raise
            self.close()


def _fill(row: SuiteRow, judged: JudgedSolution, entry: Solution, kept_chars: int) -> None:
    """``row`` from the judgement: counts, failing tests, the first failure, code when misjudged."""
    row.prepare_s, row.judged_as = judged.prepare_s, judged.judged_as
    if judged.result is None:
        _not_judged(row, Status.INVALID_PROBLEM, judged.invalid_problem or "the problem cannot judge")
        return
    result = judged.result
    row.verdict, row.accepted = result.verdict, result.pass_at_1
    row.tests = result.tests_generated
    row.tests_run = sum(record.verdict is not None for record in result.tests)
    row.tests_passed = result.tests_passed
    row.failed_tests = [index for index, record in enumerate(result.tests)
                        if record.verdict not in (Verdict.PASSED, None)]
    row.first_failure = _kept_failure(result.first_failure, entry.label)
    if row.first_failure is None and result.verdict == Verdict.COMPILE_ERROR:
        row.error = result.detail
    row.compile_s, row.tests_s = result.compile_s, result.tests_s
    row.tests_cpu_s = sum(record.cpu_s for record in result.tests)
    if row.misjudged and kept_chars:
        row.code, row.code_truncated = entry.code[:kept_chars], len(entry.code) > kept_chars


def _kept_failure(failure: FirstFailure | None, label: Label) -> FirstFailure | None:
    """The first failure as a row keeps it: whole for a correct solution (a verifier card shows it), its
    test, verdict and evidence only for an incorrect one."""
    if failure is None or label == Label.CORRECT:
        return failure
    return failure.model_copy(update={
        "input_excerpt": "", "input_truncated": False, "expected_excerpt": "", "expected_truncated": False,
        "output_excerpt": None, "output_truncated": False, "message": "", "generator_command": None})


def _not_judged(row: SuiteRow, status: Status, error: str) -> SuiteRow:
    row.status, row.error, row.verdict, row.accepted = status, _cap(error), None, None
    return row


def _cap(text: str) -> str:
    return text if len(text) <= ERROR_CAP else text[:ERROR_CAP] + "…"
