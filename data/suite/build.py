"""Build the suite's bundled data from ``data/suite/`` and ``data/codecontests_o/`` (data/suite/README.md).

    .venv/bin/python data/suite/build.py           # write the defects split and the two pools
    .venv/bin/python data/suite/build.py --check   # exit 1 when any is stale

- ``linteval_ray/suite/bundled/tests/defects-00000-of-00001.parquet``: the problems of ``problems/``
  in the CodeContests-O layout (``data/codecontests_o/build.py`` makes each row), with the defects
  their ``problem.yaml`` states applied: ``wrong_answers`` lists tests whose expected answer is
  replaced by a wrong one.
- ``linteval_ray/suite/bundled/pools/deepmind-00000-of-00001.parquet``: deepmind/code_contests rows
  (``name``, ``solutions``, ``incorrect_solutions`` with deepmind's language ids) for the bundled
  CodeContests-O problems (their ``solutions/{ok,bad}.*``, and ``extra/<folder>/``'s) and for
  ``problems/s1`` and ``s3``.
- ``linteval_ray/suite/bundled/pools/flat.jsonl``: flat rows (``problem``, ``language``, ``code``,
  ``label``, ``id``) for ``problems/s2`` and ``s4`` and ``s1``'s ``ok-gets.cpp``, in the spellings a
  flat pool may use (language names and ids, labels as words and booleans).

A solution file is ``<ok|bad>[-<variant>].<cpp|py|py2|java>``; ``ok`` is a correct solution, ``bad``
an incorrect one. Deterministic: two builds are identical.
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PROBLEMS = HERE / "problems"
EXTRA = HERE / "extra"
CCO = ROOT / "data" / "codecontests_o"
BUNDLED = ROOT / "linteval_ray" / "suite" / "bundled"
DEFECTS = BUNDLED / "tests" / "defects-00000-of-00001.parquet"
DEEPMIND = BUNDLED / "pools" / "deepmind-00000-of-00001.parquet"
FLAT = BUNDLED / "pools" / "flat.jsonl"
FLAT_PROBLEMS = ("s2", "s4")  # their solutions go to the flat pool (and s1's ok-gets.cpp)
DEEPMIND_IDS = {"py2": 1, "cpp": 2, "py": 3, "java": 4}
FLAT_LANGUAGES = {"py2": "python2", "cpp": "cpp", "py": "python3", "java": 4}  # a flat pool may give ids too
SOLUTIONS = pa.struct([("language", pa.list_(pa.int64())), ("solution", pa.list_(pa.large_string()))])
DEEPMIND_SCHEMA = pa.schema([("name", pa.large_string()), ("solutions", SOLUTIONS),
                             ("incorrect_solutions", SOLUTIONS)])


def cco_build() -> ModuleType:
    """data/codecontests_o/build.py, whose row maker and schema the defects split shares."""
    spec = importlib.util.spec_from_file_location("cco_build", CCO / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def wrong(answer: str) -> str:
    """A wrong expected answer: a number plus one, else the text with a word added."""
    text = answer.strip()
    return f"{int(text) + 1}\n" if text.lstrip("-").isdigit() else f"{text} wrong\n"


def defect_row(build: ModuleType, folder: Path) -> dict[str, Any]:
    row: dict[str, Any] = build.problem_row(folder)
    for index in yaml.safe_load((folder / "problem.yaml").read_text()).get("wrong_answers", []):
        row["corner_cases"][index]["output"]["stdout"] = wrong(row["corner_cases"][index]["output"]["stdout"])
    return row


def solution_files(folder: Path) -> list[tuple[str, str, Path]]:
    """(label, extension, file) of a folder's solutions, in name order."""
    found = []
    for path in sorted(folder.iterdir()):
        kind = path.stem.split("-", 1)[0]
        if kind in ("ok", "bad") and path.suffix[1:] in DEEPMIND_IDS:
            found.append(("correct" if kind == "ok" else "incorrect", path.suffix[1:], path))
    return found


def deepmind_row(name: str, files: list[tuple[str, str, Path]]) -> dict[str, Any]:
    lists: dict[str, dict[str, list[Any]]] = {label: {"language": [], "solution": []}
                                              for label in ("correct", "incorrect")}
    for label, extension, path in files:
        lists[label]["language"].append(DEEPMIND_IDS[extension])
        lists[label]["solution"].append(path.read_text())
    return {"name": name, "solutions": lists["correct"], "incorrect_solutions": lists["incorrect"]}


def flat_rows(name: str, files: list[tuple[str, str, Path]]) -> list[dict[str, Any]]:
    rows = []
    for number, (label, extension, path) in enumerate(files):
        # Half the labels as booleans: a flat pool may write them either way.
        given: str | bool = label if number % 2 == 0 else label == "correct"
        rows.append({"problem": name, "language": FLAT_LANGUAGES[extension], "code": path.read_text(),
                     "label": given, "id": path.name})
    return rows


def outputs() -> dict[Path, bytes]:
    build = cco_build()
    problems = sorted(path for path in PROBLEMS.iterdir() if (path / "problem.yaml").exists())
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pylist([defect_row(build, folder) for folder in problems], schema=build.SCHEMA),
                   buf, row_group_size=2, compression="zstd")
    written = {DEFECTS: buf.getvalue()}
    deepmind, flat = [], []
    for folder in sorted(path for path in (CCO / "problems").iterdir() if (path / "problem.yaml").exists()):
        name = yaml.safe_load((folder / "problem.yaml").read_text())["name"]
        extra = EXTRA / folder.name
        deepmind.append(deepmind_row(name, solution_files(folder / "solutions")
                                     + (solution_files(extra) if extra.is_dir() else [])))
    for folder in problems:
        name = yaml.safe_load((folder / "problem.yaml").read_text())["name"]
        files = solution_files(folder / "solutions")
        gets = [file for file in files if file[2].name == "ok-gets.cpp"]
        if folder.name in FLAT_PROBLEMS:
            flat += flat_rows(name, files)
        else:
            deepmind.append(deepmind_row(name, [file for file in files if file not in gets]))
            flat += flat_rows(name, gets)
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(deepmind, schema=DEEPMIND_SCHEMA), buf, row_group_size=4, compression="zstd")
    written[DEEPMIND] = buf.getvalue()
    written[FLAT] = "".join(json.dumps(row, sort_keys=True) + "\n" for row in flat).encode()
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the written files are stale")
    args = parser.parse_args()
    written = outputs()
    if args.check:
        stale = [str(path) for path, data in written.items() if not path.exists() or path.read_bytes() != data]
        for path in stale:
            print(f"stale: {path}", file=sys.stderr)
        return 1 if stale else 0
    for path, data in written.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    print(f"wrote {', '.join(str(path.relative_to(ROOT)) for path in written)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
