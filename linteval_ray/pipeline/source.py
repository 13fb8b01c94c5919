"""The split as a Ray Data stream: a datasource that reads it over the pyarrow filesystem and
checks every row where it is read, and the ``admit`` stage that drops rows an earlier attempt
wrote and writes the ``invalid_input`` rows. Only ids and counts reach the driver.

One read task per file reads it in order (a JSONL line or Parquet row at a time, pyarrow
decompressing by extension), so the per-row checker sees rows in file order as in-process
loading does: the same filters, the same duplicate rule, the same ``limit``, the same named
errors. It yields input rows, draws expanded. A malformed row rides along as rows with a
``load_error`` until ``admit`` turns them into result rows; ``batches`` then re-cuts the
rows to do into blocks of the validation pool's batch, so that they spread over its actors.
Admit and batches ask for the read's CPUs, so Ray fuses them into the read's task: the
intake is one operator and one Python worker, whatever the split's size.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import cache
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc
from pydantic import Field
from ray.data.datasource import FileBasedDatasource

from linteval_ray.config import DatasetConfig, RunConfig, TaskConfig
from linteval_ray.load.loader import Checked, InvalidRow
from linteval_ray.load.readers import Format, detect_format, jsonl_rows, parquet_rows
from linteval_ray.load.split import split_files
from linteval_ray.pipeline.inputs import input_rows, invalid_input_rows
from linteval_ray.schema import ResultRow, Status
from linteval_ray.schema.rows import INPUT_COLUMNS
from linteval_ray.schema.task import LINTEVAL_TASK
from linteval_ray.stage import BatchStage, Stage
from linteval_ray.store.folder import RunFolder
from linteval_ray.store.fs import LOCAL_SCHEMES, ObjectStore, scheme_of
from linteval_ray.store.shards import write_rows
from linteval_ray.tasks.base import ReadContext, RowReader
from linteval_ray.tasks.registry import task as task_named
from linteval_ray.validate.cache import ContentCache, default_cache_dir

if TYPE_CHECKING:
    import ray
    import ray.data

LOAD_ERROR = "load_error"
READ_BLOCK_BYTES = 4 << 20  # blocks the read passes on (Ray's default merges up to 128 MiB)
READ_NUM_CPUS = 0.5  # parsing and validating rows, one file at a time (admit and batches ride along)
# Pinned to the driver's node, the read asks for no CPU: that node may advertise none (a head
# node that only hosts drivers, as cluster/README.md advises), where a CPU request never fits.
PINNED_READ_NUM_CPUS = 0.0
NODE_ID_LABEL = "ray.io/node-id"  # every Ray node carries it
GROUP_WINDOW_BLOCKS = 64  # rows are ordered by problem within windows of this many batches


@cache
def stream_schema() -> pa.Schema:
    """The datasource's columns: the input row's, and why the row failed to load (else null)."""
    fields = [pa.field(c, pa.int64() if c == "draw" else pa.string()) for c in INPUT_COLUMNS]
    return pa.schema([*fields, pa.field(LOAD_ERROR, pa.string())])


class InputDatasource(FileBasedDatasource):
    """A split of the run's task (its files: JSONL or Parquet, optionally compressed) as checked
    input rows: each file read by the task's reader (``Task.reader``: its columns, its records)."""

    def __init__(self, url: str, dataset: DatasetConfig, draws: int, block_rows: int,
                 store: ObjectStore, task: TaskConfig | None = None, cache_url: str | None = None,
                 store_data: bool = False) -> None:
        files = split_files(url, store)
        located = [store.pyarrow_filesystem(file) for file in files]
        super().__init__([path for _, path in located], filesystem=located[0][0])
        self._url_of = {path: file for file, (_, path) in zip(files, located, strict=True)}
        self.files = len(files)
        self._format: Format = detect_format(files[0])
        self._dataset = dataset
        self._draws = draws
        self._block_rows = max(1, block_rows)
        self._task = task or TaskConfig()
        self._store = store
        self._cache_url, self._store_data = cache_url, store_data

    def _open_input_source(self, filesystem: Any, path: str, **open_args: Any) -> pa.NativeFile:
        if self._format == "parquet":  # Parquet needs random access (its footer first)
            return filesystem.open_input_file(path)
        return super()._open_input_source(filesystem, path, **open_args)

    def _reader(self) -> RowReader:
        """The task's reader, built in the read task (its side tables read there, once per file)."""
        spec = task_named(self._task.name or LINTEVAL_TASK)
        cache = ContentCache(self._cache_url, default_cache_dir() / "cache", self._store) if self._store_data else None
        return spec.reader(self._dataset, spec.options(self._task.options), ReadContext(store=self._store, cache=cache))

    def _read_stream(self, f: pa.NativeFile, path: str) -> Iterator[pa.Table]:
        url = self._url_of.get(path, path)
        reader = self._reader()
        rows = jsonl_rows(url, f) if self._format == "jsonl" else parquet_rows(url, f, reader.columns)
        checked = (row for c in reader.checked(rows) for row in self._rows_of(c))
        for block in grouped_by_problem(checked, self._block_rows, GROUP_WINDOW_BLOCKS * self._block_rows):
            yield pa.Table.from_pylist(block, schema=stream_schema())

    def _rows_of(self, checked: Checked) -> list[dict[str, Any]]:
        if isinstance(checked, InvalidRow):
            return [{"row_id": row.row_id, "sample_id": row.sample_id, "draw": row.draw,
                     LOAD_ERROR: str(checked.error)} for row in invalid_input_rows(
                         checked.sample_id, self._draws, str(checked.error))]
        return [{**row, LOAD_ERROR: None} for row in input_rows(checked, self._draws)]


def grouped_by_problem(rows: Iterable[dict[str, Any]], block_rows: int, window_rows: int,
                       ) -> Iterator[list[dict[str, Any]]]:
    """``rows`` in blocks of ``block_rows``, each window of ``window_rows`` ordered by problem,
    then language: a block is one validation batch, which goes to one actor whole, so a
    problem's samples of every language met within a window share an actor (and its tools,
    tests and answers) when they fit in a batch. Only a window is held: the stream stays a
    stream, and a problem whose rows lie further apart than a window is set up once per node
    by the content cache instead (its single flight and shared tier)."""
    window: list[dict[str, Any]] = []
    for row in rows:
        window.append(row)
        if len(window) >= window_rows:
            yield from _blocks(window, block_rows)
            window = []
    if window:
        yield from _blocks(window, block_rows)


def _blocks(window: list[dict[str, Any]], block_rows: int) -> Iterator[list[dict[str, Any]]]:
    # A stable sort: rows of one problem and language (and malformed rows, first) keep file order.
    window.sort(key=lambda r: (r.get("problem_id") or "", r.get("language") or ""))
    for start in range(0, len(window), block_rows):
        yield window[start:start + block_rows]


def read_inputs(config: RunConfig, url: str, store: ObjectStore, *, cache_url: str | None = None,
                store_data: bool = False) -> ray.data.Dataset:
    """The configured split as a stream of checked rows (Ray must be up). ``store_data``: the task's
    reader stores what its judging reads back (CodeContests-O's tests) in the content cache, with
    ``cache_url`` as its shared tier; off, the rows are read for their prompts alone (``generate``)."""
    import ray.data

    source = InputDatasource(url, config.dataset, config.generation.n, config.validation.pool.batch_size, store,
                             task=config.task, cache_url=cache_url, store_data=store_data)
    # A local file is on the driver's node, not necessarily on the others (Ray's own local://
    # does the same, and is deprecated).
    on_driver = {NODE_ID_LABEL: ray.get_runtime_context().get_node_id()} if _is_local(url) else None
    # One read task per file (Ray would otherwise split its blocks to reach a target count).
    # Ray merges a read task's blocks up to target_max_block_size (128 MiB: a whole split)
    # before passing them on: a small target here gets the first rows moving at once, and
    # ``batches`` cuts them into the validation pool's batches, which spread over its actors.
    # The dataset keeps the context it was created with.
    context = ray.data.DataContext.get_current()
    saved, context.target_max_block_size = context.target_max_block_size, READ_BLOCK_BYTES
    try:
        # One read task per file; with a limit, one for all (the limit counts the samples in file order).
        tasks = 1 if config.dataset.limit else source.files
        ds: ray.data.Dataset = ray.data.read_datasource(
            source, num_cpus=read_num_cpus(url), override_num_blocks=tasks, label_selector=on_driver)
    finally:
        context.target_max_block_size = saved
    return ds


def read_num_cpus(url: str) -> float:
    """What the read task of ``url`` asks for; the light stages that should join its task ask
    the same (Ray fuses map operators of equal CPU requests; the node label is inherited)."""
    return PINNED_READ_NUM_CPUS if _is_local(url) else READ_NUM_CPUS


def _is_local(url: str) -> bool:
    return scheme_of(url) in LOCAL_SCHEMES


class BatchesStage(Stage):
    """The stream re-cut into blocks of ``rows`` (one validation batch each), in the read's task.

    Ray 2.60's streaming repartition has no public ``num_cpus`` and asks one CPU per task: with
    the validation pool (and engines) holding every CPU, it is never placed and the job hangs.
    Its logical operator takes ``ray_remote_args`` (the planner passes them on): given the
    read's, Ray fuses it (non-strict, behind a ``map_batches``: ``admit``) into the read's task
    instead of running it in Python workers of its own."""

    rows: int = Field(ge=1)
    num_cpus: float = Field(ge=0)

    def apply(self, ds: ray.data.Dataset) -> ray.data.Dataset:
        out = ds.repartition(target_num_rows_per_block=self.rows)
        remote_args = getattr(out._logical_plan.dag, "ray_remote_args", None)
        if isinstance(remote_args, dict):
            remote_args["num_cpus"] = self.num_cpus
        return out


def batches_stage(config: RunConfig, url: str) -> BatchesStage:
    """Blocks of one validation batch each (``validation.pool.batch_size`` rows)."""
    return BatchesStage(name="batches", rows=max(1, config.validation.pool.batch_size), num_cpus=read_num_cpus(url),
                        output_schema=pa.schema([]), keeps_input_columns=True)


def admit_batch(batch: pa.Table, done: ray.ObjectRef[pa.Array] | None, folder: RunFolder) -> pa.Table:
    """The batch's input rows that are still to do; its not yet written invalid rows are
    written now (as one atomic shard: they need no evaluation)."""
    if done is not None:
        batch = batch.filter(pc.invert(pc.is_in(batch.column("row_id"), value_set=done_ids_of(done))))
    failed = pc.is_valid(batch.column(LOAD_ERROR))
    invalid = batch.filter(failed)
    if invalid.num_rows:
        write_rows(folder, [ResultRow(sample_id=r["sample_id"], draw=r["draw"], row_id=r["row_id"],
                                      status=Status.INVALID_INPUT, error=r[LOAD_ERROR])
                            for r in invalid.to_pylist()])
    return batch.filter(pc.invert(failed)).select(list(INPUT_COLUMNS))


_DONE: dict[str, pa.Array] = {}  # per worker process: the broadcast done ids of the current run


def done_ids_of(done: ray.ObjectRef[pa.Array]) -> pa.Array:
    """The broadcast ids, fetched once per worker process and run."""
    import ray

    key = done.hex()
    if key not in _DONE:
        _DONE.clear()
        _DONE[key] = ray.get(done)
    return _DONE[key]


def admit_stage(folder: RunFolder, done: ray.ObjectRef[pa.Array] | None, url: str) -> BatchStage:
    """Drops rows an earlier attempt of this run wrote (``done``: their ids, broadcast through
    the object store) and writes the invalid-input rows; passes on the input rows to do. It
    runs in the read's task of ``url`` (a set lookup per row, a small shard per block with
    invalid rows)."""
    return BatchStage(
        name="admit",
        fn=admit_batch,
        fn_kwargs={"done": done, "folder": folder},
        # batch_size=None keeps the read's blocks.
        map_batches_kwargs={"batch_format": "pyarrow", "batch_size": None, "num_cpus": read_num_cpus(url)},
        required_columns=("row_id", "sample_id", "draw", LOAD_ERROR),
        output_schema=pa.schema([stream_schema().field(c) for c in INPUT_COLUMNS]),
    )
