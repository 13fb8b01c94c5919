"""The CodeContests-O row, as the dataset card describes it, and the sample record a run makes of it.

A split row (``ProblemRow``) is one problem: its statement (``description``), its final tests
(``corner_cases``: each an input with its expected answer) and its testlib checker, among columns
the evaluation never reads (``results``, the iteration history and most of a row's bytes;
``generator``, ``commands``). One problem becomes one sample per answer language
(``CodeContestsRecord``, ``<name>/<language>``): the statement, what the judge needs (the key of
the problem's tests in the content cache, the checker, the limits) and what the metrics group by.
The tests themselves are stored once per problem (``tests.py``), never carried in a row.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from linteval_ray.schema.task import TaskRecord
from linteval_ray.tasks.codecontests_o.options import Profile

TASK_NAME = "codecontests-o"
# Read from a split (those it has): the task's columns, and the facts a CodeContests-derived row may carry.
COLUMNS = ("name", "description", "corner_cases", "checker", "title", "difficulty", "source", "cf_rating",
           "time_limit", "memory_limit_bytes")
RECOGNIZED_BY = frozenset({"name", "description", "corner_cases"})
# deepmind/code_contests' enums, for rows and side tables that carry them as numbers.
DIFFICULTIES = ("UNKNOWN_DIFFICULTY", "EASY", "MEDIUM", "HARD", "HARDER", "HARDEST", "EXTERNAL",
                *"ABCDEFGHIJKLMNOPQRSTUV")
SOURCES = ("UNKNOWN_SOURCE", "CODECHEF", "CODEFORCES", "HACKEREARTH", "CODEJAM", "ATCODER", "AIZU")


class GivenTest(BaseModel):
    """One of ``corner_cases``: ``{"input": {"stdin": ...}, "output": {"stdout": ...}}`` (the card's
    shape); a plain string for either side is taken too."""

    model_config = ConfigDict(extra="ignore")

    input: str
    output: str

    @field_validator("input", mode="before")
    @classmethod
    def _stdin(cls, value: Any) -> Any:
        return value.get("stdin") if isinstance(value, dict) else value

    @field_validator("output", mode="before")
    @classmethod
    def _stdout(cls, value: Any) -> Any:
        return value.get("stdout") if isinstance(value, dict) else value


class ProblemFacts(BaseModel):
    """A problem's limits and facts as deepmind/code_contests states them (a row's or a side table's)."""

    model_config = ConfigDict(extra="ignore")

    difficulty: str | None = None
    source: str | None = None
    cf_rating: int | None = None
    time_limit: float | None = Field(default=None, gt=0, description="seconds (or {seconds, nanos})")
    memory_limit_bytes: int | None = Field(default=None, gt=0)

    @field_validator("difficulty", mode="before")
    @classmethod
    def _difficulty(cls, value: Any) -> Any:
        return enum_name(value, DIFFICULTIES)

    @field_validator("source", mode="before")
    @classmethod
    def _source(cls, value: Any) -> Any:
        return enum_name(value, SOURCES)

    @field_validator("time_limit", mode="before")
    @classmethod
    def _seconds(cls, value: Any) -> Any:
        return seconds(value)


class ProblemRow(ProblemFacts):
    """The columns of a CodeContests-O row the evaluation reads (the others are never read)."""

    name: str = Field(min_length=1)
    description: str = Field(min_length=1)
    corner_cases: list[GivenTest] = Field(min_length=1)
    checker: str | None = None
    title: str | None = None

    @field_validator("checker", mode="before")
    @classmethod
    def _blank_checker(cls, value: Any) -> Any:
        """An empty checker is none (the card's rows leave it empty for single-answer problems)."""
        return None if isinstance(value, str) and not value.strip() else value


def enum_name(value: Any, names: tuple[str, ...]) -> Any:
    """A deepmind/code_contests enum given as its number, as its name (0, the unknown one: None)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return names[value] if 0 < value < len(names) else None
    return value or None


def seconds(value: Any) -> Any:
    """deepmind/code_contests' ``{seconds, nanos}`` as seconds (``0``: unknown, None)."""
    if isinstance(value, dict):
        total = float(value.get("seconds") or 0) + float(value.get("nanos") or 0) / 1e9
        return total or None
    return value or None


def title_of(name: str) -> str:
    """``1000_A. Codehorses T-shirts`` -> ``Codehorses T-shirts`` (as the published harness titles it)."""
    return name.split(". ", 1)[-1].strip() if ". " in name else name


class CodeContestsRecord(TaskRecord):
    """One (problem, answer language) sample: what its prompt, its judge and its metrics need."""

    task: Literal["codecontests-o"] = "codecontests-o"  # TASK_NAME
    title: str
    statement: str
    tests_key: str = Field(description="the problem's tests in the content cache (tests.py)")
    tests: int = Field(ge=1)
    checker: str | None = Field(default=None, description="testlib checker source; None: token comparison")
    time_limit_s: float = Field(gt=0, description="CPU seconds per test (strict), with the language's factor")
    memory_mb: int = Field(ge=16)
    limits_from: str = Field(description="row, side table or default policy")
    judge: Profile = Profile.STRICT
    facets: dict[str, str] = Field(default_factory=dict, description="difficulty, source, rating: where known")
