"""Bad input data through the whole pipeline: one run holding every kind of broken row next
to good ones. Each broken row becomes a result row with a named status (and, for a broken
problem, the ``ProblemError`` kind first in ``error``); the good rows are evaluated normally."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from linteval_ray.config import load_config
from linteval_ray.pipeline.run import run
from tests.pipeline.samples import bundled_jsonl

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("local_ray")]

CRASHING_CHECKER = r"""
#include "testlib.h"
#include <cstdlib>
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    std::abort();
}
"""
REJECT_ALL_VALIDATOR = r"""
#include "testlib.h"
int main(int argc, char* argv[]) {
    registerValidation(argc, argv);
    inf.readInt(-5, -1, "n");  // every generated n is positive
}
"""
FIVE_MB = 5 << 20


def _bundled(sample_id: str) -> dict[str, Any]:
    for line in bundled_jsonl().read_text().splitlines():
        row = json.loads(line)
        if row["sample_id"] == sample_id:
            return row
    raise LookupError(sample_id)


def _broken_problem(base: dict[str, Any], sample_id: str, **changes: Any) -> dict[str, Any]:
    """A copy of ``base`` on its own problem, revised to the original itself (so only the
    problem can be at fault)."""
    return base | {"sample_id": sample_id, "problem_id": f"bad-{sample_id}", "revised_code": base["code"],
                   "raw_response": None} | changes


def _rows() -> tuple[list[str], dict[str, tuple[str, str | None]]]:
    """JSONL lines and, per sample id, (expected status, expected start of ``error`` or verdict)."""
    cpp, py3 = _bundled("lr01_cpp_0"), _bundled("lr01_py3_0")
    big_revision = cpp["code"] + "/*" + "x" * FIVE_MB + "*/\n"
    rows: list[tuple[dict[str, Any] | str, str, str | None]] = [
        (cpp, "evaluated", "passed"),
        (py3, "evaluated", None),  # the dataset's own reference revision
        ({k: v for k, v in cpp.items() if k != "checker"} | {"sample_id": "missing_checker"},
         "invalid_input", "checker"),
        (cpp | {"sample_id": "wrong_type", "linter_messages": "not a list"}, "invalid_input", "linter_messages"),
        (cpp | {"sample_id": "generator_cmd_not_text", "generator_cmd": 42}, "invalid_input", "generator_cmd"),
        (cpp | {"sample_id": "unknown_language", "language": "rust"}, "invalid_input", "language"),
        (cpp | {"sample_id": "empty_code", "code": ""}, "invalid_input", "code"),
        ("{this is not json", "invalid_input", None),
        (_broken_problem(cpp, "generator_no_compile", generator="int main( {"), "invalid_problem",
         "generator_compile_error"),
        (_broken_problem(cpp, "generator_commands_fail", generator_cmd="./gen -bogus 1\n./gen --nope\n"),
         "invalid_problem", "no_valid_tests"),
        (_broken_problem(cpp, "validator_rejects_all", validator=REJECT_ALL_VALIDATOR), "invalid_problem",
         "no_valid_tests"),
        (_broken_problem(cpp, "checker_crashes", checker=CRASHING_CHECKER), "invalid_problem",
         "checker_rejects_reference"),
        (_broken_problem(py3, "original_fails_tests", code="import sys\nsys.exit(3)\n",
                         revised_code=py3["code"]), "invalid_problem", "original_fails_all"),
        (_broken_problem(cpp, "original_no_compile", code="int main() { return }\n", revised_code=cpp["code"]),
         "invalid_problem", "original_compile_error"),
        (cpp | {"sample_id": "empty_revision", "revised_code": "", "raw_response": ""}, "generation_error", None),
        (cpp | {"sample_id": "five_mb_revision", "revised_code": big_revision, "raw_response": None},
         "evaluated", "passed"),
    ]
    lines = [row if isinstance(row, str) else json.dumps(row) for row, _, _ in rows]
    expected = {}
    for number, (row, status, detail) in enumerate(rows, start=1):
        sample_id = row["sample_id"] if isinstance(row, dict) else f"#row-{number}"
        expected[sample_id] = (status, detail)
    return lines, expected


def test_every_broken_row_gets_a_named_status_and_the_run_goes_on(tmp_path: Path) -> None:
    lines, expected = _rows()
    source = tmp_path / "bad.jsonl"
    source.write_text("\n".join(lines) + "\n")
    config = load_config(None, [f"output={json.dumps(str(tmp_path / 'out'))}",
                                f"dataset.source={json.dumps(str(source))}"])

    outcome = run(config)

    rows = {r["sample_id"]: r for r in pq.read_table(Path(outcome.output) / "results.parquet").to_pylist()}
    assert sorted(rows) == sorted(expected)  # one row per input line, none lost
    for sample_id, (status, detail) in expected.items():
        row = rows[sample_id]
        assert row["status"] == status, (sample_id, row["error"], row["validation_error"])
        if status == "invalid_problem":
            assert row["error"].startswith(f"{detail}:"), (sample_id, row["error"])
        elif status == "invalid_input" and detail:
            assert detail in row["error"], (sample_id, row["error"])
        elif status == "evaluated" and detail:
            assert row["verdict"] == detail, (sample_id, row["validation_error"], row["error"])
        if status != "evaluated":
            assert not row["pass_at_1"]
    assert rows["five_mb_revision"]["revised_code"].endswith("*/\n")  # stored whole
    assert rows["#row-8"]["error"]  # the unparsable line says why
    metrics = json.loads((Path(outcome.output) / "metrics.json").read_text())
    # Pass@1 as the card defines it: broken problems are samples (not passed), broken rows are not
    assert metrics["excluded"] == sum(s in ("invalid_input", "infra_error") for s, _ in expected.values())
    assert metrics["statuses"]["invalid_problem"] == 6
    assert metrics["overall"]["n"] == sum(s not in ("invalid_input", "infra_error") for s, _ in expected.values())
    broken = {rows[s]["problem_id"] for s, (status, _) in expected.items() if status == "invalid_problem"}
    assert set(metrics["invalid_problems"]) == broken
