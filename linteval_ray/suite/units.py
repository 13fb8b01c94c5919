"""Units of work and their shards: how a suite run is exactly-once without a set of row ids anywhere.

A pool file's entries, in file order, are cut into units (``Cutter``): a unit ends after
``suite.unit_solutions`` solutions or once its code holds ``suite.unit_mb``, so the same file and
settings cut the same units on every attempt (the settings are fingerprinted). A unit is
``<file key>/u<n>``, the file key ``p<pool>f<file>`` its pool's and file's places in the config
and in the sorted listing.

A unit is one row of Ray Data's stream (a row is never split across batches), judged in one
validation call, and written as one shard, atomically, named by the unit:

- ``shards/<file key>/u<n>.parquet``: every row of the unit judged (a complete unit);
- ``shards/<file key>/u<n>.infra.parquet``: some rows are ``infra_error`` (ours).

A rerun's read task lists its own file's folder only (``UnitStates``): it skips complete units,
sends an infra unit's ``infra_error`` rows again (the judge merges them into the old shard and
writes the complete shard, then removes the infra one) and sends every other unit whole. A retried
or repeated write rewrites the same name. The reduction takes a unit's complete shard, else its
infra shard: every solution exactly once. Nothing in the driver grows with the rows.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from linteval_ray.schema import Status
from linteval_ray.store.folder import SHARD_DIR, RunFolder
from linteval_ray.suite.pools import Entry, Solution
from linteval_ray.suite.rows import suite_schema

COMPLETE = ".parquet"
INFRA = ".infra.parquet"


def file_key(pool: int, file: int) -> str:
    return f"p{pool:02d}f{file:05d}"


def unit_key(file: str, number: int) -> str:
    return f"{file}/u{number:06d}"


def shard_url(folder: RunFolder, unit: str, *, complete: bool) -> str:
    return folder.path(SHARD_DIR, f"{unit}{COMPLETE if complete else INFRA}")


@dataclass
class Unit:
    number: int
    entries: list[Entry] = field(default_factory=list)
    chars: int = 0


class Cutter:
    """A file's entries in units of at most ``solutions`` entries or ``chars`` characters of code."""

    def __init__(self, solutions: int, chars: int) -> None:
        self._solutions, self._chars = solutions, chars

    def units(self, entries: Iterable[Entry]) -> Iterator[Unit]:
        unit = Unit(number=0)
        for entry in entries:
            unit.entries.append(entry)
            unit.chars += len(entry.code) if isinstance(entry, Solution) else 0
            if len(unit.entries) >= self._solutions or unit.chars >= self._chars:
                yield unit
                unit = Unit(number=unit.number + 1)
        if unit.entries:
            yield unit


@dataclass
class UnitStates:
    """What earlier attempts wrote of one pool file: its complete units and its infra units."""

    complete: set[int] = field(default_factory=set)
    infra: dict[int, str] = field(default_factory=dict)  # unit number -> its infra shard's URL

    @classmethod
    def listed(cls, folder: RunFolder, file: str) -> UnitStates:
        states = cls()
        for url in folder.store.list_files(folder.path(SHARD_DIR, file), COMPLETE, recursive=False):
            name = url.rsplit("/", 1)[-1]
            number = int(name[1:].split(".", 1)[0])
            if name.endswith(INFRA):
                states.infra[number] = url
            else:
                states.complete.add(number)
        return states


def retried_entries(folder: RunFolder, infra_shard: str, entries: list[Entry]) -> list[Entry]:
    """The entries of an infra unit whose rows were ``infra_error`` (the others are kept as judged)."""
    table = pq.read_table(pa.BufferReader(folder.store.read_bytes(infra_shard)), columns=["solution_id", "status"])
    failed = set(table.filter(pc.equal(table.column("status"), Status.INFRA_ERROR.value))
                 .column("solution_id").to_pylist())
    return [entry for entry in entries if entry.solution_id in failed]


def write_unit(folder: RunFolder, unit: str, table: pa.Table, merge_from: str | None = None) -> str:
    """The unit's rows as its shard (merged with the judged rows of ``merge_from``, an infra shard it
    retried): complete, or infra when a row is still ``infra_error``. Returns the shard's URL."""
    if merge_from is not None:
        table = _merged(folder, table, merge_from)
    complete = not pc.any(pc.equal(table.column("status"), Status.INFRA_ERROR.value)).as_py()
    url = shard_url(folder, unit, complete=complete)
    buf = io.BytesIO()
    pq.write_table(table.cast(suite_schema()), buf, compression="zstd")
    folder.store.write_atomic(url, buf.getvalue())
    if complete and merge_from is not None:
        folder.store.remove(merge_from)
    return url


def _merged(folder: RunFolder, retried: pa.Table, infra_shard: str) -> pa.Table:
    old = pq.read_table(pa.BufferReader(folder.store.read_bytes(infra_shard))).cast(suite_schema())
    redone = pa.array(retried.column("solution_id").to_pylist(), pa.string())
    kept = old.filter(pc.invert(pc.is_in(old.column("solution_id"), value_set=redone)))
    return pa.concat_tables([kept, retried.cast(suite_schema())])
