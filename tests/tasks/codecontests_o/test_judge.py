"""Judging CodeContests-O solutions on given tests, in the real sandbox: the bundled split's solutions
in both profiles, the comparison without a checker, checkers that fail, and one solution's per-test
outcomes (what issue 39's suite builds on)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from linteval_ray.config import ValidationConfig, load_config
from linteval_ray.pipeline.dataset import resolved
from linteval_ray.pipeline.inputs import load_local_inputs
from linteval_ray.pipeline.local import validate_in_process
from linteval_ray.schema import ResultRow
from linteval_ray.tasks.codecontests_o.compat import harness_accepts
from linteval_ray.tasks.codecontests_o.judge import Problems, judge_solution
from linteval_ray.tasks.codecontests_o.record import CodeContestsRecord
from linteval_ray.validate.engine import Validator
from tests.tasks.codecontests_o.rows import bundled_solutions, problem, write_jsonl

ALL_LANGUAGES = '["cpp","py3","java"]'


def outcome(row: ResultRow) -> str:
    return row.verdict.value if row.status == "evaluated" and row.verdict else row.status.value


def judged(tmp_path: Path, source: str, predictions: list[dict[str, Any]], *overrides: str) -> dict[str, ResultRow]:
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps(p) + "\n" for p in predictions))
    draws = 1 + max(p["draw"] for p in predictions)
    config = load_config(None, [f"dataset.source={json.dumps(source)}",
                                f"generation.replay.predictions={json.dumps(str(answers))}", f"generation.n={draws}",
                                *overrides])
    return {row.row_id: row for row in validate_in_process(config)}


@pytest.mark.slow
def test_every_bundled_solution_gets_its_verdict_in_the_strict_profile(tmp_path: Path) -> None:
    solutions = bundled_solutions()
    rows = judged(tmp_path, "codecontests-o:bundled", solutions, f"dataset.languages={ALL_LANGUAGES}")

    got = {f"{s['sample_id']}/{s['draw']}": outcome(rows[f"{s['sample_id']}/{s['draw']}"]) for s in solutions}
    assert got == {f"{s['sample_id']}/{s['draw']}": s["expected"]["strict"] for s in solutions}
    assert len(got) == 54
    invalid = rows["1006_F. Count Zeros/cpp/0"].error or ""
    assert invalid.startswith("checker_rejects_expected: problem '1006_F. Count Zeros': on test 002 "), invalid
    assert "field 'checker'" in (rows["1005_E. Largest Element/py3/1"].error or "")
    several = rows["1003_C. Any Divisor/cpp/0"]  # the largest divisor, not the expected smallest: the checker decides
    assert several.pass_at_1 and several.tests_passed == several.tests_generated == 11
    tle = rows["1007_G. Sort the Numbers/cpp/1"].first_failure
    assert tle is not None and tle.time_limit_s == 1.0 and "RLIMIT_CPU" in (tle.evidence or "")  # the row's 1 s


@pytest.mark.slow
def test_the_compat_profile_judges_as_the_published_harness(tmp_path: Path) -> None:
    """The bundled C++ and Python solutions but the ones running into compat's 20 s (time limits)."""
    solutions = [s for s in bundled_solutions(("cpp", "py3")) if s["expected"]["compat"] != "time_limit"
                 and not s["sample_id"].startswith("1007_G")]
    rows = judged(tmp_path, "codecontests-o:bundled", solutions, 'dataset.languages=["cpp","py3"]',
                  'dataset.problem_ids=["1001_A. Sum of Pairs","1002_B. Circle Area","1003_C. Any Divisor",'
                  '"1004_D. Average Speed","1005_E. Largest Element","1006_F. Count Zeros","1008_H. Even or Odd",'
                  '"1009_I. Best Prefix"]', "task.options.judge=compat")

    got = {f"{s['sample_id']}/{s['draw']}": outcome(rows[f"{s['sample_id']}/{s['draw']}"]) for s in solutions}
    assert got == {f"{s['sample_id']}/{s['draw']}": s["expected"]["compat"] for s in solutions}
    # Where the profiles differ: a checker that does not compile or rejects its own answers is the
    # harness's line comparison alone; the harness sets no memory limit.
    differ = sorted(k for k, s in zip(got, solutions, strict=True) if s["expected"]["strict"] != got[k])
    assert [k for k in differ if "1005_E" not in k and "1006_F" not in k] == ["1009_I. Best Prefix/cpp/1"]
    assert len(differ) == 9


@pytest.mark.parametrize("expected, output, accepted", [
    ("3\n", "3", True), ("YES\n", "yes\n", True), ("1 2\n", "1 2 \n", True), ("1 2\n", "1  2\n", False),
    ("0.333333\n", "0.3333331\n", True), ("0.333333\n", "0.3334\n", False), ("1\n2\n", "1\n2\n\n\n", True),
    ("1\n2\n", "1\n\n2\n", False), ("nan\n", "nan\n", True), ("5\n", "5.000001\n", True),
    ("inf\n", "1e400\n", False),  # equal floats, but inf - inf is nan
])
def test_the_harness_comparison_is_the_published_one(expected: str, output: str, accepted: bool) -> None:
    assert harness_accepts(expected, output) is accepted


@pytest.fixture(scope="module")
def worker() -> Iterator[Validator]:
    validator = Validator(ValidationConfig())
    yield validator
    validator.close()


def records_of(tmp_path: Path, rows: list[dict[str, Any]], *overrides: str) -> list[CodeContestsRecord]:
    url = write_jsonl(tmp_path / "split.jsonl", rows)
    config = resolved(load_config(None, [f"dataset.source={json.dumps(url)}", "generation.replay.predictions=x",
                                         *overrides]))
    return [CodeContestsRecord.model_validate_json(r["record_json"]) for r in load_local_inputs(config).rows]


ECHO_PY = "import sys\nsys.stdout.write(open(0).read())\n"  # prints its input: the output is the test's input


@pytest.mark.parametrize("answer, given, passed", [
    ("1 2 3\n", "1   2\n3", True),  # whitespace between tokens is free
    ("YES\n", "yes\n", False),  # case is not
    ("0.5000000\n", "0.5000004\n", True), ("0.5\n", "0.50001\n", False),  # floats within 1e-6
    ("2000000\n", "2000000.5\n", True),  # relative 1e-6 (testlib's doubleCompare)
    ("7\n", "007\n", False), ("7\n", "7.0\n", True),  # integers as text; a decimal and an integer as numbers
    ("1 2\n", "1 2 3\n", False), ("1 2 3\n", "1 2\n", False),
])
def test_without_a_checker_outputs_compare_as_tokens_and_floats_within_1e_6(
        tmp_path: Path, worker: Validator, answer: str, given: str, passed: bool) -> None:
    (record,) = records_of(tmp_path, [problem("Echo", [(given, answer)])], 'dataset.languages=["py3"]')
    result = judge_solution("py3", ECHO_PY, Problems(worker.judge).get(record), compat=False)
    assert result.pass_at_1 is passed, result.detail


FAILING_CHECKER = """#include "testlib.h"
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    int answer = ans.readInt();
    int found = ouf.readInt();
    ensuref(found < 100, "output %d out of range", found);  // a FAIL (exit 3) on a participant's output
    if (found != answer) quitf(_wa, "expected %d, found %d", answer, found);
    quitf(_ok, "ok");
}
"""


def test_a_checker_failing_on_an_output_is_a_wrong_answer_and_each_test_has_its_outcome(
        tmp_path: Path, worker: Validator) -> None:
    tests = [("1\n", "1\n"), ("2\n", "2\n"), ("150\n", "3\n"), ("4\n", "4\n")]
    (record,) = records_of(tmp_path, [problem("Picky", tests, checker=FAILING_CHECKER)], 'dataset.languages=["py3"]')
    result = judge_solution("py3", ECHO_PY, Problems(worker.judge).get(record), compat=False)

    assert [(t.name, t.verdict.value if t.verdict else None) for t in result.tests] == [
        ("000", "passed"), ("001", "passed"), ("002", "wrong_answer"), ("003", "passed")]
    assert result.verdict == "wrong_answer" and result.first_failure is not None
    assert result.first_failure.test_name == "002" and "out of range" in result.first_failure.message
    assert result.first_failure.evidence == "the problem's checker failed on the output (it accepts every " \
                                            "expected answer)"
    assert (result.first_failure.input_excerpt, result.first_failure.expected_excerpt,
            result.first_failure.output_excerpt) == ("150\n", "3\n", "150\n")
