"""The suite's result row: one compact row per solution, and its Arrow schema.

A row says how the problem's tests judged the solution: ``accepted`` (it passed every test),
its ``verdict`` (the first failing test's, in test order), the tests run, which of them rejected it
(``failed_tests``, positions among the problem's tests) and the first failing test
(``first_failure``). Passing rows carry no excerpt. The excerpts of the first failing test (input,
expected answer, output, checker message) are kept for correct solutions only, the ones a verifier
card shows; a rejected incorrect solution keeps its first failing test's position, verdict and
evidence. ``code`` is kept (``suite.kept_code_kb``) for misjudged solutions: a correct one rejected,
an incorrect one accepted.

``status``: ``evaluated`` (judged), ``invalid_input`` (the pool entry cannot be judged: its
``error`` names the problem and the field), ``invalid_problem`` (the problem cannot judge: not in
the test source, its row there is invalid, or its checker rejects its own expected answers),
``infra_error`` (ours: a rerun judges it again).
"""

from __future__ import annotations

import functools
from typing import Any

import pyarrow as pa
from pydantic import BaseModel, Field

from linteval_ray.schema import Status, Verdict
from linteval_ray.schema.result import FirstFailure
from linteval_ray.suite.pools import Label


class SuiteRow(BaseModel):
    solution_id: str = Field(description="<problem>/<label>/<index or id>, as its pool names it")
    unit: str = Field(description="the unit of work it was judged in (<pool file>/u<n>): resume skips whole units")
    source: str = Field(description="where the pool holds it: file, row and field")
    problem: str | None = None
    label: Label | None = None
    language: str | None = Field(default=None, description="as its pool states it: cpp, py3, py2, java")
    judged_as: str | None = Field(default=None, description="what compiled and ran it: cpp, cpp+gnu++11, py2, py3, ...")
    status: Status
    verdict: Verdict | None = None
    accepted: bool | None = Field(default=None, description="passed every test (None: not judged)")
    tests: int = Field(default=0, description="tests the problem has")
    tests_run: int = 0
    tests_passed: int = 0
    failed_tests: list[int] = Field(default_factory=list, description="positions of the run tests that rejected it")
    first_failure: FirstFailure | None = None
    as_python3: Verdict | None = Field(default=None, description="a Python 2 solution's verdict on Python 3")
    code: str | None = Field(default=None, description="kept for misjudged solutions")
    code_truncated: bool = False
    error: str | None = Field(default=None, description="why it was not judged (names the problem and the field), "
                              "or the compiler's message of a compile error")
    prepare_s: float = 0.0
    compile_s: float = 0.0
    tests_s: float = 0.0
    tests_cpu_s: float = Field(default=0.0, description="CPU-s of its test runs, as the kernel counted them")
    worker: str | None = None

    @property
    def misjudged(self) -> bool:
        """A correct solution the tests reject, or an incorrect one they accept."""
        if self.accepted is None:
            return False
        return self.accepted != (self.label == Label.CORRECT)


_FAILURE_FIELDS = [
    ("test_index", pa.int32()), ("test_name", pa.string()), ("verdict", pa.string()),
    ("input_excerpt", pa.string()), ("input_truncated", pa.bool_()),
    ("expected_excerpt", pa.string()), ("expected_truncated", pa.bool_()),
    ("output_excerpt", pa.string()), ("output_truncated", pa.bool_()),
    ("message", pa.string()), ("ended", pa.string()), ("evidence", pa.string()),
    ("exit_code", pa.int32()), ("signal", pa.int32()), ("wall_s", pa.float64()), ("cpu_s", pa.float64()),
    ("time_limit_s", pa.float64()), ("memory_mb", pa.float64()),
]


@functools.cache
def suite_schema() -> pa.Schema:
    """The Arrow schema of ``SuiteRow`` (shards and results.parquet)."""
    return pa.schema([
        ("solution_id", pa.string()), ("unit", pa.string()), ("source", pa.string()), ("problem", pa.string()),
        ("label", pa.string()), ("language", pa.string()), ("judged_as", pa.string()), ("status", pa.string()),
        ("verdict", pa.string()), ("accepted", pa.bool_()), ("tests", pa.int32()), ("tests_run", pa.int32()),
        ("tests_passed", pa.int32()), ("failed_tests", pa.list_(pa.int32())),
        ("first_failure", pa.struct(_FAILURE_FIELDS)), ("as_python3", pa.string()), ("code", pa.string()),
        ("code_truncated", pa.bool_()), ("error", pa.string()), ("prepare_s", pa.float64()),
        ("compile_s", pa.float64()), ("tests_s", pa.float64()), ("tests_cpu_s", pa.float64()),
        ("worker", pa.string()),
    ])


def rows_table(rows: list[SuiteRow]) -> pa.Table:
    return pa.Table.from_pylist([_arrow_dict(row) for row in rows], schema=suite_schema())


def _arrow_dict(row: SuiteRow) -> dict[str, Any]:
    data = row.model_dump(mode="json")
    failure = data.get("first_failure")
    if failure is not None:
        data["first_failure"] = {name: failure.get(name) for name, _ in _FAILURE_FIELDS}
    return data


def table_rows(table: pa.Table) -> list[SuiteRow]:
    return [SuiteRow.model_validate({key: value for key, value in row.items() if value is not None})
            for row in table.to_pylist()]
