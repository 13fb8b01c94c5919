"""The test source as a problem index: each problem's records, by language, or why it cannot judge.

Built at the start of every attempt (``build_index``): each test source is read by its task's reader
in Ray Data's stream, exactly as ``linteval-ray run`` reads a split (``pipeline/source.py``: one read
task per file, only the columns the task needs, each problem's tests stored once in the content
cache), and each block of records is written from the read's own task as a part of the index,
``problems/<attempt>/s<source>-<id>.parquet`` (problem, language, record_json, error). The driver
holds counts only, then commits the attempt (``problems/index.json``) and removes earlier attempts'
parts. A resumed run builds it again:
reading a test source costs its needed columns, and storing tests that a tier holds already is a lookup.

The pool readers load the committed index (``ProblemIndex.load``): a dict of problems, each a few
records (one per answer language: their limits differ), in every read task, never in the driver. A
problem named by several sources is the first source's (a source's duplicate rows are its reader's
``invalid_input``; its records may span two parts).
"""

from __future__ import annotations

import io
import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from linteval_ray.config import DatasetConfig, RunConfig, TaskConfig
from linteval_ray.load.presets import preset_task, resolve_source
from linteval_ray.pipeline.dataset import task_of_split
from linteval_ray.pipeline.source import LOAD_ERROR, read_inputs, read_num_cpus
from linteval_ray.pipeline.validation import shared_cache_validation
from linteval_ray.stage import BatchStage
from linteval_ray.store.folder import RunFolder
from linteval_ray.suite.config import RECORD_LANGUAGES, SuiteConfig
from linteval_ray.suite.presets import BUNDLED_TESTS, expanded
from linteval_ray.tasks.registry import task

if TYPE_CHECKING:
    from linteval_ray.store.fs import ObjectStore

INDEX_DIR = "problems"
INDEX_BLOCK_RECORDS = 512  # records per part: a read task of the pools loads every part
INDEX_FILE = "index.json"
LIMITS_OPTION = "limits_url"  # a task option naming a side table of per-problem limits
PYTHON2, PYTHON3 = "py2", "py3"
_SCHEMA = pa.schema([("problem", pa.string()), ("language", pa.string()), ("record_json", pa.string()),
                     ("error", pa.string())])
PART_COUNT = pa.schema([("records", pa.int64())])


@dataclass(frozen=True)
class TestSource:
    """One test source of the run: its URL (a preset resolved) and its task with the task's options."""

    url: str
    task: str
    options: dict[str, Any]


def resolve_test_sources(config: SuiteConfig, store: ObjectStore, pool_limits: str | None = None) -> list[TestSource]:
    """The configured test sources, each with its task: ``task.name``, else its preset's, else the one
    task whose rows its columns are; the task's options are checked by the task. ``pool_limits``: a
    pool stating each problem's limits (deepmind/code_contests rows: ``time_limit``,
    ``memory_limit_bytes``), the side table of a task that takes one (``limits_url``: CodeContests-O,
    whose rows state none) unless the options name another."""
    sources: list[TestSource] = []
    for given in expanded(config.tests, BUNDLED_TESTS):
        url = resolve_source(given)
        name = config.task.name or preset_task(given) or task_of_split(url, store)
        spec = task(name)
        raw = dict(config.task.options)
        if pool_limits and spec.options_model is not None and LIMITS_OPTION in spec.options_model.model_fields:
            raw.setdefault(LIMITS_OPTION, pool_limits)
        options = spec.options(raw)
        sources.append(TestSource(url=url, task=name,
                                  options=options.model_dump(mode="json") if options is not None else {}))
    return sources


def index_url(folder: RunFolder, *parts: str) -> str:
    return folder.path(INDEX_DIR, *parts)


def build_index(config: SuiteConfig, folder: RunFolder, sources: list[TestSource], attempt: int) -> int:
    """Write the attempt's index from every test source and commit it; the problems indexed (Ray must be up)."""
    written = 0
    for number, source in enumerate(sources):
        ds = read_inputs(_reading(config, folder, source), source.url, folder.store, store_data=True,
                         cache_url=shared_cache_validation(config.validation, folder).cache_url)
        parts = BatchStage(
            name="index", fn=write_part, fn_kwargs={"folder": folder, "attempt": attempt, "source": number},
            # batch_size=None keeps the read's blocks (a part each); the read's CPUs fuse it into its task
            map_batches_kwargs={"batch_format": "pyarrow", "batch_size": None, "num_cpus": read_num_cpus(source.url)},
            required_columns=("sample_id", "problem_id", "language", "record_json", LOAD_ERROR),
            output_schema=PART_COUNT).apply(ds)
        for batch in parts.iter_batches(batch_format="pyarrow", batch_size=None):
            written += sum(cast("pa.Table", batch).column("records").to_pylist())
    folder.store.write_atomic(index_url(folder, INDEX_FILE),
                              json.dumps({"attempt": attempt, "records": written}).encode())
    current = index_url(folder, str(attempt)) + "/"
    for url in folder.store.list_files(index_url(folder), ".parquet"):  # earlier attempts' parts
        if not url.startswith(current):
            folder.store.remove(url)
    return written


def _reading(config: SuiteConfig, folder: RunFolder, source: TestSource) -> RunConfig:
    """A run config that reads ``source`` as ``linteval-ray run`` would: every answer language of a task
    that has them (CodeContests-O: each language's limits), every record otherwise."""
    per_language = task(source.task).default_languages is not None
    dataset = DatasetConfig(source=source.url, languages=list(RECORD_LANGUAGES) if per_language else None,
                            problem_ids=config.problem_ids)
    validation = shared_cache_validation(config.validation, folder)
    validation = validation.model_copy(update={"pool": validation.pool.model_copy(
        update={"batch_size": INDEX_BLOCK_RECORDS})})  # the read's blocks: the index's parts
    return RunConfig(dataset=dataset, task=TaskConfig(name=source.task, options=source.options),
                     storage=config.storage, validation=validation)


def write_part(batch: pa.Table, folder: RunFolder, attempt: int, source: int) -> pa.Table:
    """One block of a test source's records as a part of the index (in the read's task)."""
    if batch.num_rows == 0:
        return PART_COUNT.empty_table()
    failed = pc.is_valid(batch.column(LOAD_ERROR)).to_pylist()
    rows = []
    for row, bad in zip(batch.to_pylist(), failed, strict=True):
        if bad:  # the reader's sample id is <problem>/<language> (or <#row-n>/<language>)
            problem, _, language = str(row["sample_id"]).rpartition("/")
            rows.append({"problem": problem, "language": language, "record_json": None, "error": row[LOAD_ERROR]})
        else:
            rows.append({"problem": row["problem_id"], "language": row["language"],
                         "record_json": row["record_json"], "error": None})
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(rows, schema=_SCHEMA), buf, compression="zstd")
    folder.store.write_atomic(index_url(folder, str(attempt), f"s{source:02d}-{uuid.uuid4().hex}.parquet"),
                              buf.getvalue())
    return pa.Table.from_pylist([{"records": len(rows)}], schema=PART_COUNT)


@dataclass
class IndexedProblem:
    """A problem of the index: its records by language, or why its test-source row cannot judge."""

    records: dict[str, str] = field(default_factory=dict)
    error: str | None = None

    def record_for(self, language: str) -> str | None:
        """The record a solution in ``language`` is judged by: its language's (its limits), a Python 2
        solution Python 3's, else the problem's first (a task whose records are not per language)."""
        for name in (language, PYTHON3 if language == PYTHON2 else None):
            if name is not None and name in self.records:
                return self.records[name]
        return next(iter(self.records.values()), None)


class ProblemIndex:
    """The committed index of a run folder, in memory (a few records per problem)."""

    def __init__(self, problems: dict[str, IndexedProblem]) -> None:
        self.problems = problems

    @classmethod
    def load(cls, folder: RunFolder) -> ProblemIndex:
        problems: dict[str, IndexedProblem] = {}
        owner: dict[str, str] = {}  # problem -> the source that first named it (a part's name starts with it)
        for part, table in _parts(folder):
            source = part.split("-", 1)[0]
            for row in table.to_pylist():
                name = row["problem"]
                if owner.setdefault(name, source) != source:
                    continue
                entry = problems.setdefault(name, IndexedProblem())
                if row["record_json"] is not None:
                    entry.records.setdefault(row["language"], row["record_json"])
                elif entry.error is None:
                    entry.error = row["error"]
        return cls(problems)

    def get(self, problem: str) -> IndexedProblem | None:
        return self.problems.get(problem)


def committed_attempt(folder: RunFolder) -> int | None:
    data = folder.store.read_if_exists(index_url(folder, INDEX_FILE))
    return None if data is None else int(json.loads(data)["attempt"])


def _parts(folder: RunFolder) -> Iterator[tuple[str, pa.Table]]:
    """The committed attempt's parts in source order (the file names start with the source)."""
    attempt = committed_attempt(folder)
    if attempt is None:
        raise RuntimeError(f"{folder.url} holds no committed problem index")
    for url in folder.store.list_files(index_url(folder, str(attempt)), ".parquet"):
        yield url.rsplit("/", 1)[-1], pq.read_table(pa.BufferReader(folder.store.read_bytes(url)))


def problem_names(folder: RunFolder) -> Iterator[tuple[str, str | None]]:
    """Every indexed problem once, with why it cannot judge (None: it can)."""
    for name, entry in ProblemIndex.load(folder).problems.items():
        yield name, entry.error if not entry.records else None
