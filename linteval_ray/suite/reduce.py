"""A suite run's reduction: the shards streamed once into metrics.json, report.md and the cards.

Each unit's chosen shard (``units.chosen_shards``: its complete one, else its infra one; an infra
shard a complete one superseded is removed here) is read a few at a time, its small columns only,
into per-problem counts (``metrics.Accumulator``) and the card examples' places (``report.Examples``);
the cards read their examples back afterwards. Nothing held grows with the solutions: the counts are
per problem, the shards' names per unit.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor

import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import BaseModel

from linteval_ray.report.tables import to_markdown
from linteval_ray.store.folder import SHARD_DIR, RunFolder
from linteval_ray.suite.index import committed_attempt, problem_names
from linteval_ray.suite.metrics import COLUMNS, Accumulator, SuiteMetrics
from linteval_ray.suite.report import Examples, metric_tables, write_site
from linteval_ray.suite.units import COMPLETE, INFRA

READ_AHEAD = 8  # shards read at once
READ_COLUMNS = sorted({*COLUMNS, "solution_id"})


class SuiteReduction(BaseModel):
    metrics: SuiteMetrics
    shards: int
    site: str


def reduce_suite(folder: RunFolder, *, stop_at_first_failure: bool, title: str) -> SuiteReduction:
    """metrics.json, report.md and report/ from the run's shards."""
    shards = chosen_shards(folder)
    accumulator, examples = Accumulator(), Examples()
    for number, table in enumerate(_stream(folder, shards)):
        accumulator.add(table)
        examples.add(number, table)
    names = (name for name, _ in problem_names(folder)) if committed_attempt(folder) is not None else ()
    metrics = accumulator.metrics(names, stop_at_first_failure=stop_at_first_failure)
    folder.store.write_atomic(folder.metrics, metrics.model_dump_json(indent=2).encode())
    markdown = "\n\n".join(to_markdown(table) for table in metric_tables(metrics))
    folder.store.write_atomic(folder.report_md, f"# {title}\n\n{markdown}\n".encode())
    site = write_site(folder, metrics, examples, shards, title)
    return SuiteReduction(metrics=metrics, shards=len(shards), site=site)


def chosen_shards(folder: RunFolder) -> list[str]:
    """Every unit's shard, sorted: its complete one, else its infra one. An infra shard whose unit is
    complete (a judge stopped between writing the one and removing the other) is removed."""
    complete: dict[str, str] = {}
    infra: dict[str, str] = {}
    for url in folder.store.list_files(folder.path(SHARD_DIR), COMPLETE):
        if url.endswith(INFRA):
            infra[url[:-len(INFRA)]] = url
        else:
            complete[url[:-len(COMPLETE)]] = url
    for unit in infra.keys() & complete.keys():
        folder.store.remove(infra.pop(unit))
    return sorted([*complete.values(), *infra.values()])


def _stream(folder: RunFolder, urls: Sequence[str]) -> Iterator[pa.Table]:
    def read(url: str) -> pa.Table:
        shard = pq.ParquetFile(pa.BufferReader(folder.store.read_bytes(url)))
        return shard.read(columns=READ_COLUMNS, use_threads=False)

    with ThreadPoolExecutor(max_workers=READ_AHEAD) as pool:
        for start in range(0, len(urls), READ_AHEAD):
            yield from pool.map(read, urls[start:start + READ_AHEAD])
