"""LintEval: a model rewrites a program so its linter alerts go away while it stays correct.

The task the engine was built for: its record (``schema/record.py``), loader (``load/loader.py``),
prompt (``prompt/``), judge (``validate/engine.py``), metrics (``reduce/``) and report
(``report/``) live where they always have; this package names them as a ``Task``. Its problems can be
a test suite's source too (``linteval-ray suite``: ``solution_judge``).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from linteval_ray.config import DatasetConfig
from linteval_ray.load.errors import SourceError
from linteval_ray.load.loader import Checked, checked_rows
from linteval_ray.load.presets import HUB_PRESETS
from linteval_ray.load.readers import Row, SourceDigest, digest_in_background, source_digest
from linteval_ray.prompt.template import PromptTemplate
from linteval_ray.reduce.metrics import RunMetrics
from linteval_ray.report.publish import linteval_originals
from linteval_ray.report.sample_view import SUMMARY_FIELDS, chunk_of_rows, summary_of
from linteval_ray.report.tables import Table, metric_tables
from linteval_ray.schema import LintEvalRecord, ResultRow
from linteval_ray.schema.bundled import bundled_path
from linteval_ray.schema.task import LINTEVAL_TASK
from linteval_ray.store import ObjectStore
from linteval_ray.tasks.base import (
    Evaluator,
    JudgedSolution,
    ReadContext,
    RowReader,
    SiteView,
    SolutionJudge,
    SolutionOptions,
    Task,
)
from linteval_ray.validate.engine import Validator
from linteval_ray.validate.judge import ProblemError, prepare_problem
from linteval_ray.validate.solutions import judge_code

RECOGNIZED_BY = frozenset({"sample_id", "code", "generator_cmd"})


class _Reader(RowReader):
    def __init__(self, dataset: DatasetConfig) -> None:
        self._dataset = dataset

    def checked(self, rows: Iterable[Row]) -> Iterator[Checked]:
        return checked_rows(rows, self._dataset)


class _Evaluator:
    def __init__(self, worker: Validator) -> None:
        self._worker = worker

    def evaluate(self, rows: list[dict[str, Any]]) -> list[ResultRow]:
        return self._worker.evaluate_linteval(rows)


class _SolutionJudge:
    """LintEval's problems as a test suite's source: given code judged on the tests its problem's generator
    makes, against the original program's answers and under its time scale, as a revision is judged
    (``validate/judge/problem.py``: tools, tests and answers cached by content)."""

    def __init__(self, worker: Validator) -> None:
        self._ctx = worker.judge

    def judge(self, record_json: str, language: str, code: str, options: SolutionOptions) -> JudgedSolution:
        record = LintEvalRecord.model_validate_json(record_json)
        started = time.monotonic()
        try:
            problem = prepare_problem(record, self._ctx)
        except ProblemError as exc:
            return JudgedSolution(invalid_problem=str(exc), prepare_s=time.monotonic() - started)
        prepare_s = time.monotonic() - started
        judged = judge_code(language, code, problem, self._ctx, checks=lambda: None,
                            stop_at_first_failure=options.stop_at_first_failure, dialects=options.cpp_dialects)
        return JudgedSolution(result=judged.result, judged_as=judged.judged_as, prepare_s=prepare_s)


class LintEvalTask(Task):
    def recognizes(self, columns: frozenset[str]) -> bool:
        return columns >= RECOGNIZED_BY

    def identity(self, files: Sequence[str], store: ObjectStore, options: BaseModel | None) -> SourceDigest:
        return source_digest(_one_file(files), store.storage, retry=store.retry)

    def identity_in_background(self, files: Sequence[str], store: ObjectStore, options: BaseModel | None,
                               ) -> Future[SourceDigest]:
        return digest_in_background(_one_file(files), store.storage, retry=store.retry)

    def reader(self, dataset: DatasetConfig, options: BaseModel | None, context: ReadContext) -> RowReader:
        return _Reader(dataset)

    def messages(self, record_json: str, template: PromptTemplate) -> list[dict[str, str]]:
        return template.render(LintEvalRecord.model_validate_json(record_json))

    def evaluator(self, worker: Validator) -> Evaluator:
        return _Evaluator(worker)

    def solution_judge(self, worker: Validator) -> SolutionJudge:
        return _SolutionJudge(worker)

    def report_tables(self, metrics: RunMetrics) -> list[Table]:
        return metric_tables(metrics)

    def site_view(self) -> SiteView:
        return SiteView(summary_fields=SUMMARY_FIELDS, summary_of=summary_of, chunk_of_rows=chunk_of_rows,
                        records_of_run=linteval_originals)


def _one_file(files: Sequence[str]) -> str:
    if len(files) != 1:
        raise SourceError(f"a LintEval split is one file, not {len(files)}: {', '.join(files[:3])} ...")
    return files[0]


TASK = LintEvalTask(
    name=LINTEVAL_TASK,
    display_name="LintEval",
    presets={"bundled": str(bundled_path()), **HUB_PRESETS},
    prompts_dir=Path(__file__).resolve().parents[2] / "prompt" / "prompts",
)
