"""The pools as a Ray Data stream of units: read, joined with the problem index, cut, resumed.

One read task per pool file (a ``FileBasedDatasource`` over the pyarrow filesystem: local, s3://,
gs://, hf://) reads it a row at a time (a Parquet file in the pool format's columns only), joins each
solution with its problem in the index (``index.py``, loaded once per read task), cuts the entries
into units (``units.py``), skips the units an earlier attempt completed (its own file's shard folder
listed once) and yields one stream row per unit to judge: its key, its size, and its payload (the
entries and the records of their problems, as JSON). The driver sees none of it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import pyarrow as pa
from ray.data.datasource import FileBasedDatasource

from linteval_ray.load.readers import detect_format, jsonl_rows, parquet_rows
from linteval_ray.load.split import split_columns, split_files
from linteval_ray.pipeline.source import NODE_ID_LABEL, read_num_cpus
from linteval_ray.store.folder import RunFolder
from linteval_ray.store.fs import ObjectStore
from linteval_ray.suite.config import SuiteConfig
from linteval_ray.suite.index import ProblemIndex
from linteval_ray.suite.pools import BadSolution, Entry, PoolFormat, PoolReader, Solution, pool_format
from linteval_ray.suite.presets import BUNDLED_POOLS, expanded
from linteval_ray.suite.units import Cutter, UnitStates, file_key, retried_entries, unit_key

if TYPE_CHECKING:
    import ray.data

UNIT_SCHEMA = pa.schema([("unit", pa.string()), ("solutions", pa.int64()), ("payload", pa.large_string())])
MB = 1 << 20
UNIT_BLOCK_BYTES = 1  # every unit a block of its own (see read_units)


@dataclass(frozen=True)
class PoolFile:
    url: str
    key: str  # p<pool>f<file>
    format: PoolFormat


def pool_files(config: SuiteConfig, store: ObjectStore) -> list[PoolFile]:
    """Every file of every pool, in config and listing order, with its key and format (from its
    pool's first file: a footer or a first line)."""
    files: list[PoolFile] = []
    for number, pool in enumerate(expanded(config.pools, BUNDLED_POOLS)):
        urls = split_files(pool, store)
        fmt = pool_format(pool, split_columns(pool, store))
        files += [PoolFile(url=url, key=file_key(number, index), format=fmt) for index, url in enumerate(urls)]
    return files


def payload(unit: str, entries: list[Entry], index: ProblemIndex, merge_from: str | None) -> str:
    """A unit's entries and their problems' index entries (None: the index lacks the problem), as JSON."""
    names = {entry.problem for entry in entries if entry.problem is not None}
    problems = {}
    for name in sorted(names):
        found = index.get(name)
        problems[name] = None if found is None else {"records": found.records, "error": found.error}
    return json.dumps({"unit": unit, "merge_from": merge_from, "problems": problems,
                       "entries": [{"kind": "solution" if isinstance(e, Solution) else "bad", **asdict(e)}
                                   for e in entries]})


def entry_of(data: dict[str, Any]) -> Entry:
    fields = {key: value for key, value in data.items() if key != "kind"}
    return Solution(**fields) if data["kind"] == "solution" else BadSolution(**fields)


class PoolDatasource(FileBasedDatasource):
    """The pools' files as units to judge (see the module docstring)."""

    def __init__(self, config: SuiteConfig, folder: RunFolder, files: list[PoolFile]) -> None:
        located = [folder.store.pyarrow_filesystem(file.url) for file in files]
        super().__init__([path for _, path in located], filesystem=located[0][0])
        self._file_of = {path: file for file, (_, path) in zip(files, located, strict=True)}
        self._folder = folder
        self._settings = config.suite
        self._languages = set(config.languages) if config.languages is not None else None
        self._problems = set(config.problem_ids) if config.problem_ids is not None else None
        self._limit = config.limit

    def _open_input_source(self, filesystem: Any, path: str, **open_args: Any) -> pa.NativeFile:
        if detect_format(self._file_of[path].url) == "parquet":  # Parquet needs random access (its footer first)
            return filesystem.open_input_file(path)
        return super()._open_input_source(filesystem, path, **open_args)

    def _read_stream(self, f: pa.NativeFile, path: str) -> Iterator[pa.Table]:
        file = self._file_of[path]
        index = ProblemIndex.load(self._folder)
        states = UnitStates.listed(self._folder, file.key)
        name = file.url.rstrip("/").rsplit("/", 1)[-1]
        reader = PoolReader(file.format, name, self._settings.max_solution_kb * 1024)
        rows = parquet_rows(file.url, f, reader.columns) if detect_format(file.url) == "parquet" else \
            jsonl_rows(file.url, f)
        cutter = Cutter(self._settings.unit_solutions, self._settings.unit_mb * MB)
        for unit in cutter.units(self._kept(reader.entries(rows))):
            if unit.number in states.complete:
                continue
            key = unit_key(file.key, unit.number)
            merge_from = states.infra.get(unit.number)
            entries = retried_entries(self._folder, merge_from, unit.entries) if merge_from else unit.entries
            if entries:
                yield pa.Table.from_pylist([{"unit": key, "solutions": len(entries),
                                             "payload": payload(key, entries, index, merge_from)}],
                                           schema=UNIT_SCHEMA)

    def _kept(self, entries: Iterable[Entry]) -> Iterator[Entry]:
        """The entries the filters keep (a filter leaves an entry it cannot tell in), up to ``limit``."""
        kept = 0
        for entry in entries:
            if self._limit is not None and kept >= self._limit:
                return
            if self._languages is not None and entry.language is not None and entry.language not in self._languages:
                continue
            if self._problems is not None and entry.problem is not None and entry.problem not in self._problems:
                continue
            kept += 1
            yield entry


def read_units(config: SuiteConfig, folder: RunFolder, files: list[PoolFile]) -> ray.data.Dataset:
    """The units to judge as a stream (Ray must be up): one read task per pool file."""
    import ray.data

    source = PoolDatasource(config, folder, files)
    local = any(read_num_cpus(file.url) == 0 for file in files)
    on_driver = {NODE_ID_LABEL: ray.get_runtime_context().get_node_id()} if local else None
    context = ray.data.DataContext.get_current()
    # A block per unit: Ray merges a read task's small outputs up to target_max_block_size into one block, which
    # one actor would then judge whole (a file's units one after the other, its summaries at the end).
    saved, context.target_max_block_size = context.target_max_block_size, UNIT_BLOCK_BYTES
    try:
        ds: ray.data.Dataset = ray.data.read_datasource(source, num_cpus=read_num_cpus(files[0].url),
                                                        override_num_blocks=len(files), label_selector=on_driver)
        return ds
    finally:
        context.target_max_block_size = saved
