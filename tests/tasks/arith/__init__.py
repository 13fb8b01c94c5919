"""A third task, defined outside the package: ``LINTEVAL_RAY_TASKS=tests.tasks.arith`` registers it in
every process of a run (tests/tasks/test_plugin.py); nothing in ``linteval_ray`` names it.

Rows ``{"id", "question", "answer"}``: the model writes a Python 3 program that prints the answer (an
integer); the program runs once in the sandbox, through the shared judge (``compile_program``,
``JudgeContext.run``), and passes when it prints the answer. Everything a task is, in ~150 lines:
its record, reader, prompt, judging, report tables and browser view (the metrics are the shared ones).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from linteval_ray.config import DatasetConfig
from linteval_ray.load.errors import MalformedRow
from linteval_ray.load.identity import stated_identity
from linteval_ray.load.loader import Checked, InvalidRow
from linteval_ray.load.readers import Row, SourceDigest
from linteval_ray.prompt.extract import extract
from linteval_ray.prompt.template import PromptTemplate, render_values
from linteval_ray.reduce.metrics import RunMetrics
from linteval_ray.report.originals import Original
from linteval_ray.report.sample_view import outcome, reasoning_and_answer
from linteval_ray.report.tables import GROUP_HEADERS, Table, group_row
from linteval_ray.schema import ResultRow, Status, Verdict
from linteval_ray.schema.result import Timings
from linteval_ray.schema.task import TaskRecord
from linteval_ray.store import ObjectStore
from linteval_ray.tasks.base import Evaluator, ReadContext, RowReader, SiteView, Task
from linteval_ray.validate.engine import Validator
from linteval_ray.validate.judge.compile import compile_program
from linteval_ray.validate.sandbox.base import RunLimits
from linteval_ray.validate.scratch import work_dir

NAME = "arith"


class ArithRow(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: str = Field(min_length=1)
    question: str = Field(min_length=1)
    answer: int


class ArithRecord(TaskRecord):
    task: Literal["arith"] = "arith"
    question: str
    answer: int


class ArithReader(RowReader):
    columns = ("id", "question", "answer")

    def __init__(self, dataset: DatasetConfig) -> None:
        self._ids = set(dataset.sample_ids) if dataset.sample_ids is not None else None

    def checked(self, rows: Iterable[Row]) -> Iterator[Checked]:
        for number, raw in rows:
            if isinstance(raw, MalformedRow):
                yield InvalidRow(error=raw, sample_id=f"#row-{number}")
                continue
            try:
                row = ArithRow.model_validate(raw)
            except ValidationError as exc:
                first = exc.errors(include_url=False, include_input=False)[0]
                error = MalformedRow(row_number=number, field=".".join(map(str, first["loc"])), message=first["msg"])
                yield InvalidRow(error=error, sample_id=str(raw.get("id") or f"#row-{number}"))
                continue
            if self._ids is None or row.id in self._ids:
                yield ArithRecord(sample_id=row.id, problem_id=row.id, language="py3", question=row.question,
                                  answer=row.answer)


class ArithEvaluator:
    def __init__(self, worker: Validator) -> None:
        self._ctx = worker.judge

    def evaluate(self, rows: list[dict[str, Any]]) -> list[ResultRow]:
        return [self._one(row) for row in rows]

    def _one(self, row: dict[str, Any]) -> ResultRow:
        record = ArithRecord.model_validate_json(row["record_json"])
        draw = int(row.get("draw") or 0)
        result = ResultRow(sample_id=record.sample_id, draw=draw, row_id=ResultRow.make_row_id(record.sample_id, draw),
                           problem_id=record.problem_id, language="py3", task=NAME, status=Status.EVALUATED,
                           model=row.get("model"), raw_response=row.get("raw_response"))
        code = row.get("revised_code") or extract(row.get("raw_response") or "", "py3").code
        started = time.monotonic()
        if code is None:
            result.verdict, result.extraction_ok = Verdict.EXTRACTION_FAILED, False
            return result
        with work_dir(self._ctx.scratch, "arith-") as tmp:
            program = compile_program("py3", code, self._ctx, tmp / "prog").program
            if program is None:
                result.verdict = Verdict.COMPILE_ERROR
                return result
            run = self._ctx.run(program.argv(256), limits=RunLimits(wall_s=10, cpu_s=2, memory_mb=256,
                                                                   output_bytes=1 << 16), mounts=[program.mount()])
        printed = run.stdout.decode("utf-8", "replace").strip()
        result.verdict = (Verdict.RUNTIME_ERROR if not run.ok else
                          Verdict.PASSED if printed == str(record.answer) else Verdict.WRONG_ANSWER)
        result.pass_at_1, result.revised_code, result.extraction_ok = result.verdict == Verdict.PASSED, code, True
        result.tests_generated, result.tests_passed = 1, int(result.pass_at_1)
        result.tests_failed = 1 - result.tests_passed
        result.timings = Timings(tests_s=time.monotonic() - started, total_s=time.monotonic() - started)
        return result


def _summary(row: dict[str, Any], record: Original | None) -> list[Any]:
    return [row["row_id"], row["language"], row["problem_id"], record.title if record else None,
            outcome(row["verdict"], row["status"]), round(row["timings"]["total_s"], 2)]


def _chunk(rows: Sequence[dict[str, Any]], records: Mapping[str, Original]) -> dict[str, Any]:
    part: dict[str, Any] = {"samples": {}, "rows": {}}
    for row in rows:
        record = records.get(row["sample_id"])
        part["samples"][row["sample_id"]] = {"problem_id": row["problem_id"], "title": None, "prompt": None,
                                             "statement": record.code if record else None}
        reasoning, answer = reasoning_and_answer(row["raw_response"])
        part["rows"][row["row_id"]] = {**{k: row[k] for k in ("row_id", "sample_id", "draw", "language", "error",
                                                            "validation_error", "model", "prompt_version",
                                                            "tokens_used", "timings", "first_failure", "facets")},
                                       "outcome": outcome(row["verdict"], row["status"]), "passed": row["pass_at_1"],
                                       "tests": {"generated": 1, "passed": int(row["pass_at_1"]), "failed": 0,
                                                 "dropped": 0},
                                       "metrics": None, "revised": (row["revised_code"] or "").splitlines() or None,
                                       "reasoning": reasoning, "response": answer, "original_alerts": [],
                                       "revised_alerts": []}
    return part


class ArithTask(Task):
    def recognizes(self, columns: frozenset[str]) -> bool:
        return {"question", "answer"} <= columns

    def identity(self, files: Sequence[str], store: ObjectStore, options: BaseModel | None) -> SourceDigest:
        return stated_identity(files, store)

    def reader(self, dataset: DatasetConfig, options: BaseModel | None, context: ReadContext) -> RowReader:
        return ArithReader(dataset)

    def messages(self, record_json: str, template: PromptTemplate) -> list[dict[str, str]]:
        return render_values(template, {"question": ArithRecord.model_validate_json(record_json).question})

    def evaluator(self, worker: Validator) -> Evaluator:
        return ArithEvaluator(worker)

    def report_tables(self, metrics: RunMetrics) -> list[Table]:
        return [Table(title="Pass@1", headers=GROUP_HEADERS[:5], rows=[group_row("overall", metrics.overall)[:5]])]

    def site_view(self) -> SiteView:
        return SiteView(summary_fields=("row_id", "language", "problem", "title", "outcome", "time_s"),
                        summary_of=_summary, chunk_of_rows=_chunk, records_of_run=lambda folder, results: (),
                        columns=[{"key": "row_id", "label": "row"}, {"key": "outcome", "label": "verdict"}],
                        filters=[{"key": "verdict", "label": "Verdict", "field": "outcome"}])


TASK = ArithTask(name=NAME, display_name="Arith (example plugin)", prompts_dir=Path(__file__).with_name("prompts"),
                 default_languages=("py3",))
