"""Solution pools read entry by entry: deepmind/code_contests rows and flat rows, and every entry that
cannot be judged named with its file, row, problem and field."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from linteval_ray.load.readers import iter_rows
from linteval_ray.load.split import split_columns
from linteval_ray.store.fs import ObjectStore
from linteval_ray.suite.pools import BadSolution, Label, PoolFormatError, PoolReader, Solution, pool_format

KB = 1024


def entries(path: Path, fmt: str, max_kb: int = 256) -> list[Solution | BadSolution]:
    reader = PoolReader(fmt, path.name, max_kb * KB)  # type: ignore[arg-type]
    return list(reader.entries(iter_rows(str(path), columns=reader.columns)))


def test_deepmind_rows_give_each_solution_with_its_language_and_index(tmp_path: Path) -> None:
    lists = pa.struct([("language", pa.list_(pa.int64())), ("solution", pa.list_(pa.string()))])
    table = pa.table({
        "name": ["1000_A. Codehorses"],
        "solutions": pa.array([{"language": [2, 1, 3, 4], "solution": ["c", "p2", "p3", "j"]}], lists),
        "incorrect_solutions": pa.array([{"language": [0, 2], "solution": ["?", "bad"]}], lists),
        "private_tests": [{"input": ["1"], "output": ["2"]}],  # never read
    })
    pq.write_table(table, tmp_path / "pool.parquet")

    assert pool_format("pool", split_columns(str(tmp_path / "pool.parquet"), ObjectStore())) == "deepmind"
    got = entries(tmp_path / "pool.parquet", "deepmind")

    assert [(e.solution_id, e.language) for e in got if isinstance(e, Solution)] == [
        ("1000_A. Codehorses/correct/0", "cpp"), ("1000_A. Codehorses/correct/1", "py2"),
        ("1000_A. Codehorses/correct/2", "py3"), ("1000_A. Codehorses/correct/3", "java"),
        ("1000_A. Codehorses/incorrect/1", "cpp")]
    unknown = [e for e in got if isinstance(e, BadSolution)]
    assert len(unknown) == 1 and unknown[0].solution_id == "1000_A. Codehorses/incorrect/0"
    assert unknown[0].error == ("pool pool.parquet row 1 incorrect_solutions.solution[0]: problem '1000_A. "
                                "Codehorses': field 'incorrect_solutions.language[0]': 0 is not a language the suite "
                                "judges (deepmind ids 1-4, or cpp, py3, py2, java)")


def test_flat_rows_take_names_ids_and_boolean_labels_and_refuse_what_cannot_be_judged(tmp_path: Path) -> None:
    rows = [
        {"problem": "P", "language": "c++", "code": "int main(){}", "label": "correct", "id": "a"},
        {"problem": "P", "language": 3, "code": "print(1)", "label": False},
        {"problem": "P", "language": "python", "code": "print(1)", "label": "correct"},
        {"problem": "P", "language": "cobol", "code": "x", "label": "incorrect"},
        {"problem": "P", "language": "cpp", "code": "   ", "label": "correct"},
        {"problem": "P", "language": "cpp", "code": "x" * (3 * KB), "label": "correct"},
        {"problem": "P", "language": "cpp", "code": "x", "label": "maybe"},
        {"language": "cpp", "code": "x", "label": "correct"},
    ]
    pool = tmp_path / "flat.jsonl"
    pool.write_text("".join(json.dumps(row) + "\n" for row in rows) + "{broken\n")

    got = entries(pool, "flat", max_kb=2)

    assert [(e.solution_id, e.label, e.language) for e in got[:2]] == [
        ("P/correct/a", Label.CORRECT, "cpp"), ("P/incorrect/flat.jsonl:2", Label.INCORRECT, "py3")]
    errors = [e.error for e in got[2:]]
    assert errors == [
        "pool flat.jsonl row 3: problem 'P': field 'language': 'python' is ambiguous: write python2 or python3 "
        "(deepmind/code_contests' PYTHON, id 1, is Python 2)",
        "pool flat.jsonl row 4: problem 'P': field 'language': 'cobol' is not a language the suite judges "
        "(deepmind ids 1-4, or cpp, py3, py2, java)",
        "pool flat.jsonl row 5: problem 'P': field 'code': no code",
        "pool flat.jsonl row 6: problem 'P': field 'code': 3 KB of code, above suite.max_solution_kb (2 KB)",
        "pool flat.jsonl row 7: problem 'P': field 'label': 'maybe' is neither correct nor incorrect",
        "pool flat.jsonl row 8: field 'problem': a problem name is required",
        "pool flat.jsonl row 9: invalid JSON: Expecting property name enclosed in double quotes at column 2",
    ]
    assert got[5].size == 3 * KB and isinstance(got[5], BadSolution)  # the code itself is not carried along


def test_a_deepmind_row_without_solutions_is_one_entry_naming_its_problem(tmp_path: Path) -> None:
    pool = tmp_path / "pool.jsonl"
    pool.write_text(json.dumps({"name": "Q", "solutions": {"language": [], "solution": []},
                                "incorrect_solutions": {"language": [], "solution": []}}) + "\n")

    (entry,) = entries(pool, "deepmind")

    assert isinstance(entry, BadSolution) and entry.problem == "Q"
    assert entry.error == ("pool pool.jsonl row 1: problem 'Q': fields 'solutions' and 'incorrect_solutions' hold no "
                           "solution")


def test_a_pool_of_other_columns_is_refused_naming_both_formats() -> None:
    with pytest.raises(PoolFormatError, match="neither deepmind/code_contests rows"):
        pool_format("pool.jsonl", frozenset({"sample_id", "code"}))
