"""CodeContests-O: a model writes a program for a problem statement, judged on the problem's tests.

The dataset (``caijanfeng/CodeContests-O``, docs/tasks.md): 11,682 competitive-programming
problems, each with its statement, ~40 final tests with their answers (``corner_cases``) and a
testlib checker. One problem is one sample per answer language. This package is the task:

| module | what it holds |
|---|---|
| ``record.py`` | the split row's schema, the sample record |
| ``reader.py``, ``limits.py``, ``tests.py`` | the loader mapping: rows to records, limits, tests stored once |
| ``prompt.py``, ``prompts/`` | the versioned code-generation prompt |
| ``judge.py``, ``compat.py``, ``checkers/`` | judging on the given tests: strict and compat profiles |
| ``metrics.py``, ``report.py`` | its section of metrics.json, its report tables and browser pages |
| ``suite.py`` | its problems as a test suite's source: given code judged on their tests (``linteval-ray suite``) |
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

from pydantic import BaseModel

from linteval_ray.config import ConfigError, DatasetConfig, RunConfig
from linteval_ray.load.identity import stated_identity
from linteval_ray.load.readers import SourceDigest
from linteval_ray.load.split import split_files
from linteval_ray.prompt.template import PromptTemplate
from linteval_ray.reduce.metrics import RunMetrics
from linteval_ray.report.tables import Table
from linteval_ray.schema.table import ResultTable
from linteval_ray.store import ObjectStore
from linteval_ray.tasks.base import Evaluator, ReadContext, RowReader, SiteView, SolutionJudge, Task
from linteval_ray.tasks.codecontests_o import metrics, prompt, report
from linteval_ray.tasks.codecontests_o.judge import CodeContestsEvaluator
from linteval_ray.tasks.codecontests_o.options import CodeContestsOptions
from linteval_ray.tasks.codecontests_o.reader import DEFAULT_LANGUAGES, ProblemReader
from linteval_ray.tasks.codecontests_o.record import RECOGNIZED_BY, TASK_NAME
from linteval_ray.tasks.codecontests_o.suite import GivenTestsJudge
from linteval_ray.validate.engine import Validator

HUB = "hf://datasets/caijanfeng/CodeContests-O/data"
BUNDLED = Path(__file__).with_name("bundled") / "data"


class CodeContestsTask(Task):
    def recognizes(self, columns: frozenset[str]) -> bool:
        return columns >= RECOGNIZED_BY

    def identity(self, files: Sequence[str], store: ObjectStore, options: BaseModel | None) -> SourceDigest:
        limits = _options(options).limits_url
        return stated_identity(files, store, split_files(limits, store) if limits else ())

    def reader(self, dataset: DatasetConfig, options: BaseModel | None, context: ReadContext) -> RowReader:
        return ProblemReader(dataset, _options(options), context)

    def check_run(self, config: RunConfig) -> None:
        generation = config.generation
        if generation.backend == "replay" and generation.replay.predictions is None and not config.is_set:
            raise ConfigError("CodeContests-O rows carry no solutions to replay: give --model, --endpoint or "
                              "--predictions")

    def messages(self, record_json: str, template: PromptTemplate) -> list[dict[str, str]]:
        return prompt.messages(record_json, template)

    def evaluator(self, worker: Validator) -> Evaluator:
        return CodeContestsEvaluator(worker)

    def solution_judge(self, worker: Validator) -> SolutionJudge:
        return GivenTestsJudge(worker)

    def metrics(self, results: ResultTable, run_metrics: RunMetrics) -> dict[str, Any] | None:
        return metrics.task_metrics(results)

    def report_tables(self, run_metrics: RunMetrics) -> list[Table]:
        return report.report_tables(run_metrics)

    def site_view(self) -> SiteView:
        return report.SITE_VIEW


def _options(options: BaseModel | None) -> CodeContestsOptions:
    return cast(CodeContestsOptions, options) if options is not None else CodeContestsOptions()


TASK = CodeContestsTask(
    name=TASK_NAME,
    display_name="CodeContests-O",
    presets={
        "codecontests-o:test": f"{HUB}/test-*.parquet",
        "codecontests-o:valid": f"{HUB}/valid-*.parquet",
        "codecontests-o:train": f"{HUB}/train-*.parquet",
        "codecontests-o:bundled": str(BUNDLED / "test-*.parquet"),
    },
    prompts_dir=Path(__file__).with_name("prompts"),
    default_languages=DEFAULT_LANGUAGES,
    options_model=CodeContestsOptions,
    stores_at_read=True,
)
