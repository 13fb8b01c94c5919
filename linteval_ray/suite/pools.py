"""Solution pools in the ecosystem's own formats, read a row at a time, one solution after another.

Two formats, told apart by their columns (a Parquet footer, a JSONL file's first line):

- **deepmind/code_contests rows**: ``name`` and ``solutions`` / ``incorrect_solutions``, each
  ``{"language": [ids], "solution": [code]}`` with deepmind's language ids (0 unknown, 1 Python 2,
  2 C++, 3 Python 3, 4 Java). Only those three columns are read (a row's tests are most of its bytes).
  A solution is named ``<name>/<correct|incorrect>/<index in its list>``, the index the published
  harness names its result files by (``solution_<index>.json``).
- **flat rows**: ``problem``, ``language``, ``code``, ``label`` (``correct`` / ``incorrect``, or a
  boolean: true is correct), and an optional ``id``. A solution is named ``<problem>/<label>/<id>``,
  without an id ``<problem>/<label>/<file>:<row>``.

Languages are deepmind's ids or names: ``cpp`` (``c++``, ``cpp17``, ...), ``py3`` (``python3``),
``py2`` (``python2``), ``java``. A bare ``python`` is ambiguous (deepmind's ``PYTHON``, id 1, is
Python 2): such a row is refused, as is any other language, naming the problem and the field.

What cannot be judged becomes a ``BadSolution`` naming the pool file, its row, the problem and the
field (an unknown language, a missing or too long code, a row without solutions, a malformed row);
``join.py`` adds the problems the test source does not hold.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

from linteval_ray.errors import LintEvalError
from linteval_ray.load.errors import MalformedRow
from linteval_ray.load.readers import Row

PoolFormat = Literal["deepmind", "flat"]
DEEPMIND_COLUMNS = ("name", "solutions", "incorrect_solutions")
FLAT_COLUMNS = ("problem", "language", "code", "label", "id")
DEEPMIND_LANGUAGES = {1: "py2", 2: "cpp", 3: "py3", 4: "java"}  # 0 is UNKNOWN_LANGUAGE
LANGUAGE_NAMES = {
    "cpp": "cpp", "c++": "cpp", "cpp17": "cpp", "c++17": "cpp", "cpp14": "cpp", "c++14": "cpp", "cpp11": "cpp",
    "c++11": "cpp", "gnu++": "cpp", "py3": "py3", "python3": "py3", "python 3": "py3", "pypy3": "py3",
    "py2": "py2", "python2": "py2", "python 2": "py2", "pypy2": "py2", "java": "java", "java8": "java",
    "java11": "java", "java17": "java",
}
AMBIGUOUS = {"python", "py"}


class Label(StrEnum):
    CORRECT = "correct"
    INCORRECT = "incorrect"


class PoolFormatError(LintEvalError):
    """A pool whose columns are neither format's; the message names both."""


def pool_format(url: str, columns: frozenset[str]) -> PoolFormat:
    """The format of a pool whose first file has ``columns``."""
    if "name" in columns and columns & {"solutions", "incorrect_solutions"}:
        return "deepmind"
    if {"problem", "code"} <= columns:
        return "flat"
    found = ", ".join(sorted(columns)[:12]) or "none"
    raise PoolFormatError(f"pool {url}: its columns ({found}) are neither deepmind/code_contests rows (name, "
                          "solutions, incorrect_solutions) nor flat rows (problem, language, code, label)")


@dataclass(frozen=True, slots=True)
class Solution:
    """One solution to judge, as its pool states it."""

    solution_id: str
    problem: str
    label: Label
    language: str  # cpp, py3, py2, java
    code: str
    source: str  # where it is: "<file> row <n> solutions[<i>]"


@dataclass(frozen=True, slots=True)
class BadSolution:
    """A pool entry that cannot be judged: ``error`` names the problem and the field."""

    solution_id: str
    problem: str | None
    label: Label | None
    language: str | None
    error: str
    source: str
    size: int = 0  # characters of code it held (a too long solution is not carried along)


Entry = Solution | BadSolution


def language_of(value: Any) -> str | None:
    """A pool's language (a deepmind id or a name) as a judge language; None when unknown."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return DEEPMIND_LANGUAGES.get(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text.isdigit():
            return DEEPMIND_LANGUAGES.get(int(text))
        return LANGUAGE_NAMES.get(text)
    return None


def language_error(value: Any) -> str:
    """Why a pool's language value is refused."""
    if isinstance(value, str) and value.strip().lower() in AMBIGUOUS:
        return (f"{value!r} is ambiguous: write python2 or python3 (deepmind/code_contests' PYTHON, id 1, is "
                "Python 2)")
    return f"{value!r} is not a language the suite judges (deepmind ids 1-4, or cpp, py3, py2, java)"


class PoolReader:
    """The entries of one pool file, in file order (``entries``): its rows as read by
    ``load/readers.py`` (``columns`` of a Parquet file), each row's solutions one by one."""

    def __init__(self, fmt: PoolFormat, file_name: str, max_solution_chars: int) -> None:
        self.format = fmt
        self.columns = DEEPMIND_COLUMNS if fmt == "deepmind" else FLAT_COLUMNS
        self._file = file_name
        self._max = max_solution_chars

    def entries(self, rows: Iterable[Row]) -> Iterator[Entry]:
        for row_number, raw in rows:
            where = f"{self._file} row {row_number}"
            if isinstance(raw, MalformedRow):
                yield BadSolution(solution_id=f"#{self._file}:{row_number}", problem=None, label=None, language=None,
                                  error=f"pool {where}: {raw.message}", source=where)
            elif self.format == "deepmind":
                yield from self._deepmind(raw, row_number, where)
            else:
                yield self._flat(raw, row_number, where)

    def _deepmind(self, raw: dict[str, Any], row_number: int, where: str) -> Iterator[Entry]:
        name = raw.get("name")
        if not isinstance(name, str) or not name:
            yield BadSolution(solution_id=f"#{self._file}:{row_number}", problem=None, label=None, language=None,
                              error=f"pool {where}: field 'name': a problem name is required", source=where)
            return
        found = False
        for label, column in ((Label.CORRECT, "solutions"), (Label.INCORRECT, "incorrect_solutions")):
            for entry in self._listed(name, label, column, raw.get(column), where):
                found = True
                yield entry
        if not found:
            yield BadSolution(solution_id=f"{name}/pool#{self._file}:{row_number}", problem=name, label=None,
                              language=None, source=where,
                              error=f"pool {where}: problem {name!r}: fields 'solutions' and 'incorrect_solutions' "
                              "hold no solution")

    def _listed(self, name: str, label: Label, column: str, value: Any, where: str) -> Iterator[Entry]:
        if value is None:
            return
        if not isinstance(value, dict) or not isinstance(value.get("solution"), list):
            yield BadSolution(solution_id=f"{name}/{label}/#{self._file}", problem=name, label=label, language=None,
                              source=where, error=f"pool {where}: problem {name!r}: field '{column}' is not "
                              "{language: [ids], solution: [code]}")
            return
        codes: list[Any] = value["solution"]
        listed = value.get("language")
        languages: list[Any] = listed if isinstance(listed, list) else []
        for index, code in enumerate(codes):
            raw_language = languages[index] if index < len(languages) else None
            field = f"{column}.solution[{index}]"
            yield self._checked(f"{name}/{label}/{index}", name, label, raw_language, f"{column}.language[{index}]",
                                code, field, f"{where} {field}")

    def _flat(self, raw: dict[str, Any], row_number: int, where: str) -> Entry:
        problem = raw.get("problem")
        label = _label(raw.get("label"))
        ident = raw.get("id")
        suffix = str(ident) if isinstance(ident, str | int) and not isinstance(ident, bool) else \
            f"{self._file}:{row_number}"
        if not isinstance(problem, str) or not problem:
            return BadSolution(solution_id=f"#{self._file}:{row_number}", problem=None, label=label, language=None,
                               error=f"pool {where}: field 'problem': a problem name is required", source=where)
        if label is None:
            return BadSolution(solution_id=f"{problem}/?/{suffix}", problem=problem, label=None, language=None,
                               source=where, error=f"pool {where}: problem {problem!r}: field 'label': "
                               f"{raw.get('label')!r} is neither correct nor incorrect")
        return self._checked(f"{problem}/{label}/{suffix}", problem, label, raw.get("language"), "language",
                             raw.get("code"), "code", where)

    def _checked(self, solution_id: str, problem: str, label: Label, raw_language: Any, language_field: str,
                 code: Any, code_field: str, where: str) -> Entry:
        language = language_of(raw_language)

        def bad(field: str, why: str, size: int = 0) -> BadSolution:
            return BadSolution(solution_id=solution_id, problem=problem, label=label, language=language, source=where,
                               size=size, error=f"pool {where}: problem {problem!r}: field '{field}': {why}")

        if language is None:
            return bad(language_field, language_error(raw_language))
        if not isinstance(code, str) or not code.strip():
            return bad(code_field, "no code")
        if len(code) > self._max:
            return bad(code_field, f"{len(code) / 1024:.0f} KB of code, above suite.max_solution_kb "
                       f"({self._max // 1024} KB)", size=len(code))
        return Solution(solution_id=solution_id, problem=problem, label=label, language=language, code=code,
                        source=where)


def _label(value: Any) -> Label | None:
    if isinstance(value, bool):
        return Label.CORRECT if value else Label.INCORRECT
    if isinstance(value, str):
        text = value.strip().lower()
        if text in {"correct", "solution", "solutions", "accepted", "true", "1"}:
            return Label.CORRECT
        if text in {"incorrect", "incorrect_solution", "incorrect_solutions", "rejected", "false", "0"}:
            return Label.INCORRECT
    if isinstance(value, int):
        return Label.CORRECT if value == 1 else Label.INCORRECT if value == 0 else None
    return None
