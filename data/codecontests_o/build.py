"""Build the bundled CodeContests-O split from ``data/codecontests_o/problems/`` (data/codecontests_o/README.md).

    .venv/bin/python data/codecontests_o/build.py           # write the split and the solutions file
    .venv/bin/python data/codecontests_o/build.py --check   # exit 1 when either is stale

Each problem folder holds ``problem.yaml`` (name, statement, facts, the expected verdicts of its
incorrect solutions), ``gen.py`` (prints its test inputs as a JSON list), ``ref.py`` (the reference
solution: its output on each input is the expected answer), an optional ``checker.cpp`` and
``solutions/{ok,bad}.{cpp,py,java}``. The split is written in the dataset's layout: Parquet files
``data/test-0000k-of-00002.parquet`` with the card's columns (``name``, ``description``,
``corner_cases``, ``commands``, ``generator``, ``checker``, ``input_constraints_summary``,
``results``) and, where a problem states them, deepmind/code_contests' ``difficulty``, ``source``,
``time_limit`` and ``memory_limit_bytes``; row groups of two rows. The solutions file has, per
problem and language, draw 0 the correct solution and draw 1 the incorrect one, each with the
verdicts it must get (``expected``: strict and compat). Deterministic: two builds are identical.
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import yaml

HERE = Path(__file__).resolve().parent
PROBLEMS = HERE / "problems"
OUTPUT = HERE.parents[1] / "linteval_ray" / "tasks" / "codecontests_o" / "bundled" / "data"
SOLUTIONS = HERE / "solutions.jsonl"
FILES = 2
ROW_GROUP_ROWS = 2
EXTENSIONS = {"cpp": "cpp", "py3": "py", "java": "java"}

STRING = pa.large_string()
CASE = pa.struct([("input", pa.struct([("stdin", STRING)])), ("output", pa.struct([("stdout", STRING)]))])
ITERATION = pa.struct([
    ("corner_cases", pa.list_(CASE)), ("generate_commands", pa.list_(STRING)), ("commands_add", pa.list_(STRING)),
    ("commands_replace", pa.list_(STRING)), ("generate_case_inputs", pa.list_(STRING)),
    ("improved_generator", STRING), ("search_replace_generator_blocks", pa.list_(STRING)),
    ("unmatched_blocks", pa.list_(STRING)),
])
SCHEMA = pa.schema([
    ("name", STRING), ("description", STRING), ("corner_cases", pa.list_(CASE)), ("commands", pa.list_(STRING)),
    ("generator", STRING), ("checker", STRING), ("input_constraints_summary", STRING), ("results", pa.list_(ITERATION)),
    ("difficulty", STRING), ("source", STRING),
    ("time_limit", pa.struct([("seconds", pa.int64()), ("nanos", pa.int64())])), ("memory_limit_bytes", pa.int64()),
])


def run_python(script: Path, stdin: str = "") -> str:
    done = subprocess.run([sys.executable, str(script)], input=stdin, capture_output=True, text=True, check=True,
                          timeout=120)
    return done.stdout


def problem_row(folder: Path) -> dict[str, Any]:
    spec = yaml.safe_load((folder / "problem.yaml").read_text())
    inputs: list[str] = json.loads(run_python(folder / "gen.py"))
    cases = [{"input": {"stdin": given}, "output": {"stdout": run_python(folder / "ref.py", given)}}
             for given in inputs]
    checker = folder / "checker.cpp"
    commands = [f"python3 gen.py --test {index}" for index in range(len(inputs))]
    return {
        "name": spec["name"], "description": spec["description"], "corner_cases": cases, "commands": commands,
        "generator": (folder / "gen.py").read_text(), "checker": checker.read_text() if checker.exists() else "",
        "input_constraints_summary": spec["input_constraints_summary"],
        # the iteration history (never read by the evaluation): here, a first iteration of three tests
        "results": [{"corner_cases": cases[:3], "generate_commands": commands[:3], "commands_add": [],
                     "commands_replace": [],
                     "generate_case_inputs": inputs[:3], "improved_generator": (folder / "gen.py").read_text(),
                     "search_replace_generator_blocks": [], "unmatched_blocks": []}],
        "difficulty": spec.get("difficulty"), "source": spec.get("source"), "time_limit": spec.get("time_limit"),
        "memory_limit_bytes": spec.get("memory_limit_bytes"),
    }


def solution_rows(folder: Path) -> list[dict[str, Any]]:
    spec = yaml.safe_load((folder / "problem.yaml").read_text())
    ok = spec.get("ok", {"strict": "passed", "compat": "passed"})
    rows = []
    for language, extension in EXTENSIONS.items():
        bad = spec["bad"][language]
        for draw, (kind, expected) in enumerate((("ok", ok), ("bad", bad))):
            code = (folder / "solutions" / f"{kind}.{extension}").read_text()
            rows.append({"sample_id": f"{spec['name']}/{language}", "draw": draw, "revised_code": code,
                         "expected": {"strict": expected["strict"], "compat": expected["compat"]}})
    return rows


def parquet_files(rows: list[dict[str, Any]]) -> dict[str, bytes]:
    per_file = -(-len(rows) // FILES)
    files = {}
    for index in range(FILES):
        buf = io.BytesIO()
        table = pa.Table.from_pylist(rows[index * per_file:(index + 1) * per_file], schema=SCHEMA)
        pq.write_table(table, buf, row_group_size=ROW_GROUP_ROWS, compression="zstd")
        files[f"test-{index:05d}-of-{FILES:05d}.parquet"] = buf.getvalue()
    return files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the written files are stale")
    args = parser.parse_args()
    folders = sorted(path for path in PROBLEMS.iterdir() if (path / "problem.yaml").exists())
    outputs = {OUTPUT / name: data for name, data in parquet_files([problem_row(f) for f in folders]).items()}
    outputs[SOLUTIONS] = "".join(json.dumps(row, sort_keys=True) + "\n"
                                 for folder in folders for row in solution_rows(folder)).encode()
    if args.check:
        stale = [str(path) for path, data in outputs.items() if not path.exists() or path.read_bytes() != data]
        for path in stale:
            print(f"stale: {path}", file=sys.stderr)
        return 1 if stale else 0
    OUTPUT.mkdir(parents=True, exist_ok=True)
    for path, data in outputs.items():
        path.write_bytes(data)
    print(f"wrote {len(folders)} problems to {OUTPUT} and {SOLUTIONS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
