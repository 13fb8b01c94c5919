"""CodeContests-O rows for the tests, and splits written in the dataset's layout.

``card_schema`` is the dataset card's schema (``name``, ``description``, ``corner_cases``, ``commands``,
``generator``, ``checker``, ``input_constraints_summary``, ``results``: the hub's column types, every
string ``large_string``); ``write_split`` writes rows as ``data/test-0000k-of-0000N.parquet``, the
split's file layout on the hub (``data/{split}-*``), or as JSONL.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parents[3]
BUNDLED_SOLUTIONS = REPO / "data" / "codecontests_o" / "solutions.jsonl"
STRING = pa.large_string()
CASE = pa.struct([("input", pa.struct([("stdin", STRING)])), ("output", pa.struct([("stdout", STRING)]))])
ITERATION = pa.struct([
    ("corner_cases", pa.list_(CASE)), ("generate_commands", pa.list_(STRING)), ("commands_add", pa.list_(STRING)),
    ("commands_replace", pa.list_(STRING)), ("generate_case_inputs", pa.list_(STRING)),
    ("improved_generator", STRING), ("search_replace_generator_blocks", pa.list_(STRING)),
    ("unmatched_blocks", pa.list_(STRING)),
])


def card_schema() -> pa.Schema:
    return pa.schema([
        ("name", STRING), ("description", STRING), ("corner_cases", pa.list_(CASE)), ("commands", pa.list_(STRING)),
        ("generator", STRING), ("checker", STRING), ("input_constraints_summary", STRING),
        ("results", pa.list_(ITERATION)),
    ])


def case(given: str, expected: str) -> dict[str, Any]:
    return {"input": {"stdin": given}, "output": {"stdout": expected}}


def problem(name: str, tests: list[tuple[str, str]], *, checker: str = "", history_bytes: int = 0,
            description: str | None = None) -> dict[str, Any]:
    """A row in the card's schema; ``history_bytes``: that much random text in ``results`` (the evaluation never
    reads it)."""
    cases = [case(given, expected) for given, expected in tests]
    history = [{"corner_cases": cases, "generate_commands": ["./gen 1"], "commands_add": [], "commands_replace": [],
                "generate_case_inputs": [given for given, _ in tests],
                "improved_generator": base64.b64encode(os.urandom(history_bytes * 3 // 4)).decode(),
                "search_replace_generator_blocks": [], "unmatched_blocks": []}]
    return {"name": name, "description": description or f"Statement of {name}: print the sum of two numbers.",
            "corner_cases": cases, "commands": ["./gen 1"], "generator": "int main() {}", "checker": checker,
            "input_constraints_summary": "1 <= a, b <= 10", "results": history}


def sum_problem(name: str, count: int = 3, **kwargs: Any) -> dict[str, Any]:
    """A + B, ``count`` tests."""
    return problem(name, [(f"{i} {i + 1}\n", f"{2 * i + 1}\n") for i in range(count)], **kwargs)


def write_split(folder: Path, rows: list[dict[str, Any]], *, files: int = 1, split: str = "test",
                row_group_rows: int = 2, schema: pa.Schema | None = None) -> str:
    """``rows`` as ``folder/data/<split>-0000k-of-0000N.parquet``; returns the split's glob URL."""
    data = folder / "data"
    data.mkdir(parents=True, exist_ok=True)
    per_file = -(-len(rows) // files)
    for index in range(files):
        table = pa.Table.from_pylist(rows[index * per_file:(index + 1) * per_file], schema=schema or card_schema())
        pq.write_table(table, data / f"{split}-{index:05d}-of-{files:05d}.parquet", row_group_size=row_group_rows)
    return str(data / f"{split}-*.parquet")


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return str(path)


def bundled_solutions(languages: tuple[str, ...] = ("cpp", "py3", "java")) -> list[dict[str, Any]]:
    """The bundled split's solutions (data/codecontests_o/solutions.jsonl), with their expected verdicts."""
    rows = [json.loads(line) for line in BUNDLED_SOLUTIONS.read_text().splitlines()]
    return [row for row in rows if row["sample_id"].rsplit("/", 1)[1] in languages]
