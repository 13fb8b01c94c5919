"""A CodeContests-O split file as checked sample records, in file order (``RowReader``).

Each row is read in its needed columns only (``record.COLUMNS``: never ``results``, ``generator``
or ``commands``), checked against ``ProblemRow`` and the size caps of ``task.options``, its tests
stored once in the content cache (``tests.py``), and made into one record per answer language
(``dataset.languages``, default C++), ``<name>/<language>``. A row that cannot be judged becomes
one ``InvalidRow`` per language naming its row, the problem and the field (a row without tests,
one too large, a field of the wrong type): the run goes on. The dataset filters apply as for
LintEval (``problem_ids`` on the row's name, ``sample_ids`` and ``languages`` on its samples,
before it is checked), and so do the duplicate rule (the first row of a sample id keeps it) and
``limit`` (samples).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from pydantic import ValidationError

from linteval_ray.config import DatasetConfig
from linteval_ray.load.errors import MalformedRow
from linteval_ray.load.loader import Checked, InvalidRow
from linteval_ray.load.readers import Row
from linteval_ray.tasks.base import ReadContext, RowReader
from linteval_ray.tasks.codecontests_o.compat import WALL_S
from linteval_ray.tasks.codecontests_o.limits import Limits, SideRow, facets_of, problem_limits, read_side_table
from linteval_ray.tasks.codecontests_o.options import CodeContestsOptions, Profile
from linteval_ray.tasks.codecontests_o.record import COLUMNS, CodeContestsRecord, ProblemRow, title_of
from linteval_ray.tasks.codecontests_o.tests import encoded, store_tests, tests_key

DEFAULT_LANGUAGES = ("cpp",)
KB, MB = 1 << 10, 1 << 20


class ProblemReader(RowReader):
    columns = COLUMNS

    def __init__(self, dataset: DatasetConfig, options: CodeContestsOptions, context: ReadContext) -> None:
        self._options = options
        self._cache = context.cache
        self._languages = tuple(dataset.languages or DEFAULT_LANGUAGES)
        self._problem_ids = set(dataset.problem_ids) if dataset.problem_ids is not None else None
        self._sample_ids = set(dataset.sample_ids) if dataset.sample_ids is not None else None
        self._limit = dataset.limit
        self._kept = 0
        self._first_row_of: dict[str, int] = {}
        self._side: dict[str, SideRow] = (read_side_table(options.limits_url, context.store)
                                          if options.limits_url else {})

    def checked(self, rows: Iterable[Row]) -> Iterator[Checked]:
        for row_number, raw in rows:
            if self._limit is not None and self._kept >= self._limit:
                return
            yield from self._samples(row_number, raw)

    def _samples(self, row_number: int, raw: dict[str, Any] | MalformedRow) -> Iterator[Checked]:
        name = raw.get("name") if isinstance(raw, dict) else None
        name = name if isinstance(name, str) and name else None
        if isinstance(raw, dict) and self._problem_ids is not None and name not in self._problem_ids:
            return
        languages = [lang for lang in self._languages
                     if self._sample_ids is None or (name is not None and f"{name}/{lang}" in self._sample_ids)]
        if not languages:
            return
        problem = self._problem(row_number, raw, name)
        if isinstance(problem, MalformedRow):
            for language in languages:
                yield self._invalid(problem, name, language)
            return
        key = tests_key(problem.corner_cases)
        if self._cache is not None:
            store_tests(self._cache, key, problem.corner_cases)
        side = self._side.get(problem.name)
        for language in languages:
            record = self._record(problem, side, language, key)
            first = self._first_row_of.setdefault(record.sample_id, row_number)
            if first != row_number:
                duplicate = MalformedRow(row_number=row_number, sample_id=record.sample_id, field="name",
                                         message=f"duplicate problem name (first seen at row {first})")
                yield self._invalid(duplicate, name, language)
                continue
            self._kept += 1
            yield record

    def _problem(self, row_number: int, raw: dict[str, Any] | MalformedRow, name: str | None,
                 ) -> ProblemRow | MalformedRow:
        """The row as a problem, or the error naming its first bad field."""
        if isinstance(raw, MalformedRow):
            return raw
        if not raw.get("corner_cases"):  # the commonest bad row: said plainly
            return _error(row_number, name, "corner_cases", "no tests: the row's corner_cases is empty")
        too_large = self._too_large(raw)
        if too_large is not None:
            return _error(row_number, name, *too_large)
        try:
            return ProblemRow.model_validate(raw)
        except ValidationError as exc:
            first = exc.errors(include_url=False, include_input=False)[0]
            field = ".".join(str(part) for part in first["loc"])
            return _error(row_number, name, field or None, first["msg"])

    def _too_large(self, raw: dict[str, Any]) -> tuple[str, str] | None:
        """(field, why) of the first field over its cap (``task.options``), measured before any model."""
        caps = (("description", self._options.max_statement_kb * KB, "max_statement_kb"),
                ("checker", self._options.max_checker_kb * KB, "max_checker_kb"))
        for field, cap, setting in caps:
            value = raw.get(field)
            if isinstance(value, str) and len(value) > cap:
                return field, f"{len(value) / KB:.0f} KB, above task.options.{setting} ({cap // KB} KB)"
        total, cap = 0, self._options.max_tests_mb * MB
        for test in raw["corner_cases"] if isinstance(raw["corner_cases"], list) else ():
            for side, inner in (("input", "stdin"), ("output", "stdout")):
                value = test.get(side) if isinstance(test, dict) else None
                value = value.get(inner) if isinstance(value, dict) else value
                total += len(encoded(value)) if isinstance(value, str) else 0
            if total > cap:
                return "corner_cases", f"more than {cap // MB} MB of tests, above task.options.max_tests_mb"
        return None

    def _record(self, problem: ProblemRow, side: SideRow | None, language: str, key: str) -> CodeContestsRecord:
        limits = problem_limits(problem, side, self._options, language)
        if self._options.judge == Profile.COMPAT:  # the published harness's, whatever the problem states
            limits = Limits(time_s=WALL_S, memory_mb=self._options.compat_memory_mb, stated_by="compat profile")
        return CodeContestsRecord(
            sample_id=f"{problem.name}/{language}", problem_id=problem.name, language=language,
            title=problem.title or title_of(problem.name), statement=problem.description, tests_key=key,
            tests=len(problem.corner_cases), checker=problem.checker, time_limit_s=limits.time_s,
            memory_mb=limits.memory_mb, limits_from=limits.stated_by, judge=self._options.judge,
            facets=facets_of(problem, side))

    def _invalid(self, error: MalformedRow, name: str | None, language: str) -> InvalidRow:
        """The ``invalid_input`` rows of one (row, language): the sample id of the problem's
        language, or of its row number when the row names no problem."""
        sample_id = f"{name or f'#row-{error.row_number}'}/{language}"
        if self._first_row_of.setdefault(sample_id, error.row_number) != error.row_number:
            sample_id = f"{sample_id}#row-{error.row_number}"
        return InvalidRow(error=error, sample_id=sample_id)


def _error(row_number: int, name: str | None, field: str | None, message: str) -> MalformedRow:
    """A row's error naming its problem (its sample ids are its name and languages)."""
    return MalformedRow(row_number=row_number, field=field,
                        message=f"problem {name!r}: {message}" if name else message)
