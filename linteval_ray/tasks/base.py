"""``Task``: everything the engine knows about one benchmark task, as one value.

A task is to the pipeline what a language is to the judge (``languages/base.py``): a package of
its own (``linteval_ray/tasks/<name>/``) whose ``TASK`` is an instance of this contract, known to
``registry.py`` by name. The pipeline, the judge, the sandbox, the caches, the sets, the stores
and the results browser are shared; what differs between tasks is here:

- the data: the presets it ships, how it recognises its rows (``recognizes``: by column names),
  what identifies a split without reading it (``identity``), and its row reader (``reader``:
  the columns it reads, its record type, one split row to sample records, the named errors);
- its prompt (``messages``: a record and a template of its own, ``prompts_dir``);
- its judging (``evaluator``: pipeline rows to result rows on a validation worker's warm state);
  a task whose problems can be a test suite's source (``linteval-ray suite``) also judges given code
  on one of its records' problems (``solution_judge``);
- its metrics and report (``metrics``: its section of ``metrics.json``; ``report_tables``;
  ``site_view``: what the results browser shows of its rows).

This module is the contract, below everything that asks for a task: the types it names from
higher layers (the worker, result tables, report tables) are imported for type checking only.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, ValidationError

from linteval_ray.config import ConfigError, describe_errors
from linteval_ray.errors import LintEvalError

if TYPE_CHECKING:  # the contracts a task names; their modules sit above this one
    from linteval_ray.config import DatasetConfig, RunConfig
    from linteval_ray.load.loader import Checked
    from linteval_ray.load.readers import Row, SourceDigest
    from linteval_ray.prompt.template import PromptTemplate
    from linteval_ray.reduce.metrics import RunMetrics
    from linteval_ray.report.tables import Table
    from linteval_ray.schema import ResultRow
    from linteval_ray.schema.table import ResultTable
    from linteval_ray.store.fs import ObjectStore
    from linteval_ray.validate.cache import ContentCache
    from linteval_ray.validate.engine import Validator
    from linteval_ray.validate.judge.run import JudgeResult


@dataclass(frozen=True)
class ReadContext:
    """What a task's reader may use in the read task besides the rows: the content cache a task
    stores model-independent data in once (None: the rows are read for their prompts only, as
    ``generate`` does), and the run's store (side tables)."""

    store: ObjectStore
    cache: ContentCache | None = None


class RowReader(ABC):
    """A task's reading of one split file: the columns it needs and its checked records."""

    columns: tuple[str, ...] | None = None  # Parquet columns read (those present); None: every column

    @abstractmethod
    def checked(self, rows: Iterable[Row]) -> Iterator[Checked]:
        """Each row of one file, in file order, as its sample records or an ``InvalidRow`` naming
        the row, the sample and the field; rows the dataset filters exclude yield nothing."""


class Evaluator(Protocol):
    """A task's judging on one validation worker (its warm state: sandbox, caches, toolchain)."""

    def evaluate(self, rows: list[dict[str, Any]]) -> list[ResultRow]:
        """One result row per pipeline row, in order; nothing escapes as an exception."""


@dataclass(frozen=True)
class JudgedSolution:
    """Given code judged on a record's problem (``SolutionJudge``): its judgement and what compiled it,
    or why the problem cannot judge any solution (``invalid_problem``, naming the test or field)."""

    result: JudgeResult | None = None
    judged_as: str | None = None
    invalid_problem: str | None = None
    prepare_s: float = 0.0


@dataclass(frozen=True)
class SolutionOptions:
    """How ``linteval-ray suite`` judges a solution (``suite/config.py`` ``SuiteSettings``)."""

    stop_at_first_failure: bool = False
    cpp_dialects: tuple[str, ...] = ()  # C++ dialects tried in order when C++17 does not compile it


class SolutionJudge(Protocol):
    """A task's judging of given code on its problems, on one validation worker's warm state."""

    def judge(self, record_json: str, language: str, code: str, options: SolutionOptions) -> JudgedSolution:
        """``code`` in ``language`` judged on the problem of ``record_json`` (a record of the task);
        an exception is ours (an ``infra_error``), never the solution's."""


@dataclass(frozen=True)
class SiteView:
    """What the results browser (``report/site.py``) shows of a task's rows. Records are the
    report's ``Original``s: what a sample's pages show of its dataset record, read back from the
    split (``records_of_run``), whose ``code`` is the text the task shows (LintEval: the original
    program; CodeContests-O: the statement)."""

    summary_fields: tuple[str, ...]  # the fields of each line of data/index.js, in order
    summary_of: Any  # (site row, record or None) -> its index line (a list, in summary_fields order)
    chunk_of_rows: Any  # (site rows of one chunk, records by sample id) -> the chunk's JSON
    records_of_run: Any  # (run folder, results) -> the records of the run's samples (an iterable of Original)
    columns: list[dict[str, Any]] | None = None  # the sample table's columns (index.js); None: LintEval's
    filters: list[dict[str, Any]] | None = None  # its filters; None: LintEval's


@dataclass(frozen=True, eq=False)
class Task(ABC):
    """One benchmark task; built once in its package and registered by ``name`` (compared by identity)."""

    name: str  # how configs, manifests, records and rows name it
    display_name: str  # how reports name it
    presets: Mapping[str, str] = field(default_factory=dict)  # preset name -> URL (a glob for several files)
    prompts_dir: Path | None = None  # its templates: ``<task>/<version>`` is <prompts_dir>/<version>.yaml
    default_languages: tuple[str, ...] | None = None  # what a run covers when dataset.languages is unset
    options_model: type[BaseModel] | None = None  # ``task.options`` (None: the task takes none)
    # Its reader stores data in the content cache that its judging reads back (CodeContests-O's tests):
    # a run on several nodes then needs the shared tier.
    stores_at_read: bool = False

    @abstractmethod
    def recognizes(self, columns: frozenset[str]) -> bool:
        """Whether a split with these columns (top-level field names) holds this task's rows."""

    def options(self, raw: Mapping[str, Any]) -> BaseModel | None:
        """``task.options`` validated; a ``ConfigError`` names the key."""
        if self.options_model is None:
            if raw:
                raise ConfigError(f"task.options: task {self.name} takes no options")
            return None
        try:
            return self.options_model.model_validate(dict(raw))
        except ValidationError as exc:
            raise ConfigError(describe_errors(exc, prefix="task.options")) from None

    @abstractmethod
    def identity(self, files: Sequence[str], store: ObjectStore, options: BaseModel | None) -> SourceDigest:
        """What identifies the split's data (and anything else the task reads, such as side tables)
        for the run's fingerprint, and its rows when known, without reading its rows on the driver."""

    def identity_in_background(self, files: Sequence[str], store: ObjectStore, options: BaseModel | None,
                               ) -> Future[SourceDigest]:
        """``identity`` on a thread of its own: the driver starts Ray meanwhile."""
        future: Future[SourceDigest] = Future()

        def identify() -> None:
            try:
                future.set_result(self.identity(files, store, options))
            except BaseException as exc:  # noqa: BLE001 -- handed to whoever waits for the identity
                future.set_exception(exc)

        threading.Thread(target=identify, name="linteval-source-identity", daemon=True).start()
        return future

    @abstractmethod
    def reader(self, dataset: DatasetConfig, options: BaseModel | None, context: ReadContext) -> RowReader:
        """The reader of one split file (built in the read task)."""

    def check_run(self, config: RunConfig) -> None:  # noqa: B027 -- most tasks accept every run
        """Refuse, with one line saying what to do, a run this task cannot make sense of."""

    @abstractmethod
    def messages(self, record_json: str, template: PromptTemplate) -> list[dict[str, str]]:
        """The chat messages (OpenAI format) of one record with one of the task's templates."""

    @abstractmethod
    def evaluator(self, worker: Validator) -> Evaluator:
        """The task's judging on ``worker``'s warm state (built once per worker, on first use)."""

    def solution_judge(self, worker: Validator) -> SolutionJudge:
        """The task's judging of given code (``linteval-ray suite``): only a task whose problems carry
        their tests (or make them) can be a test source."""
        raise LintEvalError(f"task {self.name} cannot be a test suite's source: its problems judge no given code")

    def metrics(self, results: ResultTable, metrics: RunMetrics) -> dict[str, Any] | None:
        """The task's own section of ``metrics.json`` (``task_metrics``), beside the shared one."""
        return None

    @abstractmethod
    def report_tables(self, metrics: RunMetrics) -> list[Table]:
        """The report's metric tables (report.md, report.html, the browser's index)."""

    @abstractmethod
    def site_view(self) -> SiteView:
        """What the results browser shows of the task's rows."""
