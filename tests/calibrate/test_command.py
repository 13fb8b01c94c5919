"""``linteval-ray calibrate`` on a split built from the dataset card's real rows."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from linteval_ray.validate.lint.profiles import load_profile
from tests.card_rows import (
    A1036_ORIGINAL,
    A1036_ORIGINAL_IDENTITIES,
    CPP_106C,
    CPP_1007D,
    CPP_1045F,
    CPP_1152B,
    E1162_ORIGINAL,
)
from tests.load.rows import make_row


def _messages(tool: str, identities: list[tuple[int, int, str]]) -> list[dict]:
    return [{"tool": tool, "line": line, "column": column, "message_text": identity.split("::", 1)[1],
             "check_name": identity.split("::", 1)[0]} for line, column, identity in identities]


def card_split(path: Path) -> Path:
    """The card's rows with what is visible: 1036_A's three alerts in full (the other two are the
    ones the fidelity doc infers), 1162_E's two, and each C++ row's first recorded alert only."""
    rows = [
        make_row(1, "py3", sample_id="1036_A_py3_0", problem_id="1036_A", code=A1036_ORIGINAL,
                 linter_messages=_messages("pylint", [(1, 0, i) for i in A1036_ORIGINAL_IDENTITIES])),
        make_row(2, "py3", sample_id="1162_E_py3_0", problem_id="1162_E", code=E1162_ORIGINAL,
                 linter_messages=_messages("pylint", [(4, 0, "missing-final-newline::Final newline missing"),
                                                      (1, 0, "missing-module-docstring::Missing module docstring")])),
    ]
    for number, view in enumerate([CPP_106C, CPP_1045F, CPP_1007D, CPP_1152B], start=3):
        alert = view.first_alert
        rows.append(make_row(number, "cpp", sample_id=view.sample_id, problem_id=view.sample_id.rsplit("_", 2)[0],
                             code=view.code,
                             linter_messages=_messages("clang-tidy", [(alert.line, alert.column, alert.identity)])))
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture(scope="module")
def calibrated(
    tmp_path_factory: pytest.TempPathFactory, session_cache_dir: Path
) -> tuple[subprocess.CompletedProcess[str], Path]:
    work = tmp_path_factory.mktemp("calibrate")
    split = card_split(work / "card.jsonl")
    out = subprocess.run(
        [sys.executable, "-m", "linteval_ray", "calibrate", "--dataset", str(split),
         "-o", str(work / "calibration.json"), "--derive", str(work / "derived")],
        capture_output=True, text=True, timeout=600, cwd=work,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return out, work


def test_prints_the_agreement_table_per_language(calibrated) -> None:
    out, work = calibrated
    assert "Lint agreement of profile linteval" in out.stdout
    py3 = next(line for line in out.stdout.splitlines() if line.startswith("py3"))
    assert py3.split()[:4] == ["py3", "pylint", "2", "100.0%"]  # both py3 rows re-lint exactly as recorded
    report = json.loads((work / "calibration.json").read_text())["calibration"]
    cpp = report["by_language"]["cpp"]
    # every visible first alert is found (recall 1); the record lists only those, so precision < 1
    assert (cpp["samples"], cpp["recorded"], cpp["matched"], cpp["recall"]) == (4, 4, 4, 1.0)
    assert cpp["precision"] < 1.0 and cpp["only_ours"]
    assert report["profile"]["name"] == "linteval"


def test_derive_writes_a_profile_of_exactly_the_recorded_checks(calibrated) -> None:
    out, work = calibrated
    derived = load_profile(work / "derived")
    tidy = yaml.safe_load((derived.path / "clang-tidy.yaml").read_text())
    assert tidy["checks"] == ("-*,clang-diagnostic-ignored-pragmas,clang-diagnostic-register,modernize-use-nullptr")
    assert {"-Wignored-pragmas", "-Wregister"} <= set(tidy["compile_args"]) and "-Wall" not in tidy["compile_args"]
    rc = (derived.path / "pylintrc").read_text()
    assert "disable=all" in rc and "use-implicit-booleaness-not-comparison-to-zero" in rc
    assert "derived profile written to" in out.stdout
    written = json.loads((work / "calibration.json").read_text())
    derived_cpp, default_cpp = written["derived"]["by_language"]["cpp"], written["calibration"]["by_language"]["cpp"]
    assert derived_cpp["precision"] > default_cpp["precision"]


def test_a_run_accepts_the_derived_profile(calibrated, session_cache_dir: Path) -> None:
    _, work = calibrated
    out = subprocess.run(
        [sys.executable, "-m", "linteval_ray", "validate", "--sample-id", "lr01_py3_0", "--json",
         "--set", f"validation.lint_profile={work / 'derived'}"],
        capture_output=True, text=True, timeout=600,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    (row,) = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    assert row["status"] == "evaluated"
    assert {m["check_name"] for m in row["original_messages"]} <= {
        "missing-final-newline", "missing-module-docstring", "use-implicit-booleaness-not-comparison-to-zero"}


def test_an_unknown_profile_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "linteval_ray", "calibrate", "--profile", "nope"],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 2
    assert "lint profile 'nope' not found" in out.stderr and "Traceback" not in out.stderr
