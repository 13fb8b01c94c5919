"""Each problem's time and memory limits: stated by the row, else by a side table, else by policy.

CodeContests-O rows carry no limits (deepmind/code_contests' ``time_limit`` and
``memory_limit_bytes`` were left out). In order:

1. the row's own ``time_limit`` / ``memory_limit_bytes`` (a CodeContests-derived split may keep them);
2. the side table at ``task.options.limits_url`` (JSONL or Parquet, a glob for several files), by
   ``name``: deepmind/code_contests' own files serve as they are (only those columns are read);
   its ``difficulty``, ``source`` and ``cf_rating`` group the metrics too;
3. the default policy: ``time_limit_s`` (2 s) and ``memory_mb`` (256 MB), the common Codeforces limits.

A language's time limit is the problem's times its ``time_factors`` entry (Java 2, Python 3 by
default: limits were set for C++ solutions). Limits are CPU time (strict profile); the compat
profile replaces them with the published harness's 20 s per test (``judge.py``).
"""

from __future__ import annotations

from typing import NamedTuple

from pydantic import Field, ValidationError

from linteval_ray.load.errors import MalformedRow, SourceError
from linteval_ray.load.readers import iter_rows
from linteval_ray.load.split import split_files
from linteval_ray.store import ObjectStore
from linteval_ray.tasks.codecontests_o.options import CodeContestsOptions
from linteval_ray.tasks.codecontests_o.record import ProblemFacts, ProblemRow

SIDE_COLUMNS = ("name", "time_limit", "memory_limit_bytes", "difficulty", "source", "cf_rating")
MB = 1 << 20


class SideRow(ProblemFacts):
    """A side table's row: the limits and facts of one problem."""

    name: str = Field(min_length=1)


class Limits(NamedTuple):
    time_s: float
    memory_mb: int
    stated_by: str  # "row", "side table", "default policy"


def read_side_table(url: str, store: ObjectStore) -> dict[str, SideRow]:
    """The side table by problem name (its files in order; a later row of a name wins). A bad row
    fails the run, naming the file, the row and the field: limits must not silently fall back."""
    table: dict[str, SideRow] = {}
    for file in split_files(url, store):
        for row_number, raw in iter_rows(file, store.storage, retry=store.retry, columns=SIDE_COLUMNS):
            if isinstance(raw, MalformedRow):
                raise SourceError(f"limits table {file}: {raw}")
            try:
                row = SideRow.model_validate(raw)
            except ValidationError as exc:
                first = exc.errors(include_url=False)[0]
                field = ".".join(str(part) for part in first["loc"])
                raise SourceError(f"limits table {file}: row {row_number}: field '{field}': {first['msg']}") from None
            table[row.name] = row
    return table


def problem_limits(row: ProblemRow, side: SideRow | None, options: CodeContestsOptions, language: str) -> Limits:
    """The limits a solution in ``language`` runs under on ``row``'s problem (see the module docstring)."""
    if row.time_limit is not None or row.memory_limit_bytes is not None:
        time_s, memory, stated_by = row.time_limit, row.memory_limit_bytes, "row"
    elif side is not None and (side.time_limit is not None or side.memory_limit_bytes is not None):
        time_s, memory, stated_by = side.time_limit, side.memory_limit_bytes, "side table"
    else:
        time_s, memory, stated_by = None, None, "default policy"
    factor = options.time_factors.get(language, 1.0)
    memory_mb = max(16, -(-memory // MB)) if memory is not None else options.memory_mb
    return Limits(time_s=(time_s or options.time_limit_s) * factor, memory_mb=memory_mb, stated_by=stated_by)


def facets_of(row: ProblemRow, side: SideRow | None) -> dict[str, str]:
    """What the metrics group a problem by besides language: difficulty, source, Codeforces rating
    (the row's own, else the side table's)."""
    facts = {"difficulty": row.difficulty, "source": row.source,
             "cf_rating": str(row.cf_rating) if row.cf_rating else None}
    if side is not None:
        stated = {"difficulty": side.difficulty, "source": side.source,
                  "cf_rating": str(side.cf_rating) if side.cf_rating else None}
        facts = {key: facts[key] or stated[key] for key in facts}
    return {key: value for key, value in facts.items() if value}
