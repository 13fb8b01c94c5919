"""``linteval-ray suite`` end to end on a real local Ray, the real sandbox and toolchain: the bundled pools
over the bundled problems judged with every rate asserted exactly, the verifier cards naming the culprit
tests and solutions, bad input as per-row statuses, stopping at the first failure, and resume (after a
SIGKILLed driver, and of infra_error rows) with every solution exactly once."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest

from linteval_ray.load.presets import resolve_source
from linteval_ray.suite.command import load_suite_config
from linteval_ray.suite.metrics import SuiteMetrics
from linteval_ray.suite.report import card_name
from linteval_ray.suite.run import SuiteOutcome, run_suite

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

SUM, CIRCLE, LARGEST = "1001_A. Sum of Pairs", "1002_B. Circle Area", "1005_E. Largest Element"
AREA, POSITION, NUMBER, DIGITS = ("2001_A. Rectangle Area", "2002_B. Maximum Position", "2003_C. Largest Number",
                                  "2004_D. Digit Sum")
SUBSET = [SUM, LARGEST, AREA, POSITION, NUMBER, DIGITS]


def suite(output: Path, *overrides: str, problems: list[str] = SUBSET) -> SuiteOutcome:
    return run_suite(load_suite_config(None, [f"output={json.dumps(str(output))}", "suite.unit_solutions=6",
                                              f"problem_ids={json.dumps(problems)}", *overrides]))


def rows(output: Path) -> list[dict[str, Any]]:
    table: list[dict[str, Any]] = pads.dataset(str(output / "shards"), format="parquet").to_table().to_pylist()
    return table


@pytest.fixture(scope="module")
def bundled(local_ray: None, toolchain: object, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, SuiteMetrics]:
    output = tmp_path_factory.mktemp("suite") / "bundled"
    return output, suite(output).reduction.metrics


def rates(metrics: SuiteMetrics, group: str = "overall") -> dict[str, tuple[float | None, float | None]]:
    chosen = metrics.overall if group == "overall" else metrics.by_language[group]
    return {name: (variant.tpr.value, variant.tnr.value) for name, variant in
            (("macro", chosen.macro), ("intersection", chosen.intersection), ("pooled", chosen.pooled))}


def test_the_bundled_pools_give_every_rate_exactly(bundled: tuple[Path, SuiteMetrics]) -> None:
    _, metrics = bundled
    per_problem = {p.problem: (p.accepted, p.correct, p.rejected, p.incorrect) for p in metrics.problems}
    assert per_problem == {
        SUM: (4, 4, 4, 4),  # C++, Python 3, Java, Python 2: each right and wrong
        AREA: (0, 5, 4, 4),  # test 2's expected answer is wrong: every correct solution fails it
        POSITION: (3, 4, 2, 2),  # the checker rejects the last largest position, a valid answer
        NUMBER: (4, 4, 1, 3),  # tests too weak: the maximum started at 0 passes (C++ and Java)
        DIGITS: (2, 2, 0, 0),  # correct solutions only: a TPR, no TNR
    }
    assert rates(metrics) == {
        "macro": (pytest.approx((1 + 0 + 0.75 + 1 + 1) / 5), pytest.approx((1 + 1 + 1 + 1 / 3) / 4)),
        "intersection": (pytest.approx((1 + 0 + 0.75 + 1) / 4), pytest.approx((1 + 1 + 1 + 1 / 3) / 4)),
        "pooled": (pytest.approx(13 / 19), pytest.approx(11 / 13)),
    }
    assert rates(metrics, "cpp") == {"macro": (pytest.approx(4 / 5), pytest.approx(3 / 4)),
                                     "intersection": (pytest.approx(3 / 4), pytest.approx(3 / 4)),
                                     "pooled": (pytest.approx(4 / 6), pytest.approx(3 / 4))}
    assert rates(metrics, "java") == {"macro": (pytest.approx(3 / 4), pytest.approx(2 / 3)),
                                      "intersection": (pytest.approx(2 / 3), pytest.approx(2 / 3)),
                                      "pooled": (pytest.approx(3 / 4), pytest.approx(2 / 3))}
    assert rates(metrics, "py3")["macro"] == (pytest.approx(3 / 5), 1.0)
    assert rates(metrics, "py2")["macro"] == (pytest.approx(3 / 4), 1.0)
    assert metrics.statuses == {"evaluated": 32, "invalid_problem": 6}
    assert list(metrics.invalid_problems) == [LARGEST]
    assert "field 'checker'" in metrics.invalid_problems[LARGEST]
    assert metrics.dialects["cpp+gnu++11"] == {"correct": 1}  # the solution using gets()


def test_python2_solutions_are_judged_as_python2_and_compared_with_python3(bundled: tuple[Path, SuiteMetrics]) -> None:
    output, metrics = bundled
    python2 = metrics.python2
    assert python2 is not None
    assert (python2.as_python2.macro.tpr.value, python2.as_python3.macro.tpr.value) == (0.75, 0.0)
    assert python2.overall_if_python3.macro.tpr.value == pytest.approx((0.75 + 0 + 0.5 + 0.75 + 1) / 5)
    py2 = {row["solution_id"]: (row["judged_as"], row["verdict"], row["as_python3"]) for row in rows(output)
           if row["language"] == "py2"}
    assert py2[f"{SUM}/correct/3"] == ("py2", "passed", "compile_error")  # print statement, xrange
    assert py2[f"{AREA}/correct/3"] == ("py2", "wrong_answer", "compile_error")


def test_the_cards_name_the_culprit_tests_and_solutions(bundled: tuple[Path, SuiteMetrics]) -> None:
    output, metrics = bundled
    area = (output / "report" / "cards" / card_name(AREA)).read_text()
    culprit = area.split("Tests that reject correct solutions", 1)[1].split("</table>", 1)[0]
    assert "<td class='num'>2</td><td class='num'>5</td>" in culprit
    for solution in ("correct/0", "correct/1", "correct/2", "correct/3", "correct/ok-gets.cpp"):
        assert f"{AREA}/{solution}" in culprit
    assert "-57\n+56" in area  # the diff of the wrong expected answer and the right output
    position = (output / "report" / "cards" / card_name(POSITION)).read_text()
    assert "expected position 1, found 3" in position and f"{POSITION}/correct/ok-last.py" in position
    assert next(p for p in metrics.problems if p.problem == POSITION).culprit_tests == {1: 1, 3: 1}
    number = (output / "report" / "cards" / card_name(NUMBER)).read_text()
    passing = number.split("Incorrect solutions that pass every test (2)", 1)[1]
    assert f"{NUMBER}/incorrect/0" in passing and f"{NUMBER}/incorrect/1" in passing and "best = 0" in passing
    index = (output / "report" / "index.html").read_text()
    assert f"cards/{card_name(AREA)}" in index and "Problems that cannot judge" in index


def test_every_solution_has_one_compact_row(bundled: tuple[Path, SuiteMetrics]) -> None:
    output, _ = bundled
    got = rows(output)
    ids = [row["solution_id"] for row in got]
    assert len(ids) == len(set(ids)) == 38
    for row in got:
        if row["accepted"]:  # no excerpt; code only when misjudged (an incorrect solution that passes)
            assert row["first_failure"] is None and row["failed_tests"] == []
            assert (row["code"] is not None) == (row["label"] == "incorrect")
    rejected_incorrect = next(r for r in got if r["solution_id"] == f"{AREA}/incorrect/1")
    assert rejected_incorrect["first_failure"]["output_excerpt"] is None  # no excerpt: not a card's solution
    manifest = json.loads((output / "manifest.json").read_text())
    assert manifest["judging"]["stop_at_first_failure"] is False and manifest["kind"] == "suite"


def test_stopping_at_the_first_failure_keeps_every_verdict_and_runs_fewer_tests(
        bundled: tuple[Path, SuiteMetrics], tmp_path: Path) -> None:
    full_output, _ = bundled
    output = tmp_path / "stop"
    outcome = suite(output, "suite.stop_at_first_failure=true", problems=[AREA])

    full = {r["solution_id"]: r for r in rows(full_output) if r["problem"] == AREA}
    stopped = {r["solution_id"]: r for r in rows(output)}
    assert {k: (r["verdict"], r["accepted"]) for k, r in stopped.items()} == \
        {k: (r["verdict"], r["accepted"]) for k, r in full.items()}
    for key, row in stopped.items():
        if row["first_failure"] is not None:
            assert row["first_failure"]["test_index"] == full[key]["first_failure"]["test_index"]
    assert sum(r["tests_run"] for r in stopped.values()) < sum(r["tests_run"] for r in full.values())
    assert outcome.reduction.metrics.stop_at_first_failure
    assert json.loads((output / "manifest.json").read_text())["judging"]["stop_at_first_failure"] is True


def test_bad_input_is_a_row_naming_the_problem_and_the_field(local_ray: None, tmp_path: Path) -> None:
    pool = tmp_path / "pool.jsonl"
    lines = [
        {"name": DIGITS, "solutions": {"language": [3, 7], "solution": ["print(sum(map(int, input().strip())))",
                                                                       "x"]}},
        {"name": "9999_Z. Nowhere", "solutions": {"language": [2], "solution": ["int main(){}"]}},
        {"name": CIRCLE, "solutions": {"language": [], "solution": []},
         "incorrect_solutions": {"language": [], "solution": []}},
        {"name": DIGITS, "incorrect_solutions": {"language": [2], "solution": ["//" + "x" * (10 << 20)]}},
    ]
    pool.write_text("".join(json.dumps(line) + "\n" for line in lines))

    suite(tmp_path / "out", f"pools={json.dumps([str(pool)])}", problems=[DIGITS, CIRCLE, "9999_Z. Nowhere"])

    got = {row["solution_id"]: row for row in rows(tmp_path / "out")}
    assert {k: (r["status"], r["accepted"]) for k, r in got.items()} == {
        f"{DIGITS}/correct/0": ("evaluated", True),
        f"{DIGITS}/correct/1": ("invalid_input", None),
        "9999_Z. Nowhere/correct/0": ("invalid_input", None),
        f"{CIRCLE}/pool#pool.jsonl:3": ("invalid_input", None),
        f"{DIGITS}/incorrect/0": ("invalid_input", None),
    }
    assert got[f"{DIGITS}/correct/1"]["error"] == (
        f"pool pool.jsonl row 1 solutions.solution[1]: problem '{DIGITS}': field 'solutions.language[1]': 7 is not "
        "a language the suite judges (deepmind ids 1-4, or cpp, py3, py2, java)")
    assert got["9999_Z. Nowhere/correct/0"]["error"] == (
        "pool pool.jsonl row 2 solutions.solution[0]: problem '9999_Z. Nowhere': field 'name': no test source holds "
        "this problem")
    empty = got[f"{CIRCLE}/pool#pool.jsonl:3"]["error"]
    assert "fields 'solutions' and 'incorrect_solutions' hold no solution" in empty
    assert got[f"{DIGITS}/incorrect/0"]["error"] == (
        f"pool pool.jsonl row 4 incorrect_solutions.solution[0]: problem '{DIGITS}': field "
        "'incorrect_solutions.solution[0]': 10240 KB of code, above suite.max_solution_kb (256 KB)")
    assert got[f"{DIGITS}/incorrect/0"]["code"] is None


def test_infra_error_rows_are_judged_again_and_the_rest_kept(local_ray: None, tmp_path: Path) -> None:
    output = tmp_path / "out"
    suite(output, problems=[DIGITS])
    [shard] = (output / "shards").glob("*/*.parquet")
    table = pq.read_table(shard)
    judged = table.to_pylist()
    failed = dict(judged[0], status="infra_error", verdict=None, accepted=None, error="sandbox: box set-up failed")
    pq.write_table(table.from_pylist([failed, *judged[1:]], schema=table.schema),
                   shard.with_name(shard.name.replace(".parquet", ".infra.parquet")))
    shard.unlink()

    outcome = suite(output, problems=[DIGITS])

    assert not list((output / "shards").glob("*/*.infra.parquet"))
    after = {row["solution_id"]: row for row in rows(output)}
    assert sorted(after) == sorted(row["solution_id"] for row in judged)
    assert after[judged[0]["solution_id"]]["status"] == "evaluated"
    assert after[judged[1]["solution_id"]] == judged[1]  # kept as it was, not judged again
    assert outcome.judged_now == 1
    assert {part.parent.name for part in (output / "problems").glob("*/*.parquet")} == {"2"}  # this attempt's index


def _kill_ray_processes_under(ray_tmp: str) -> None:
    """The driver's local Ray outlives a SIGKILLed driver: end exactly its processes."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if ray_tmp in cmdline:
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid), signal.SIGKILL)


def test_a_sigkilled_driver_resumes_with_every_solution_exactly_once(tmp_path: Path, session_cache_dir: str) -> None:
    output = tmp_path / "out"
    command = [sys.executable, "-m", "linteval_ray", "suite", "--output", str(output), "--set",
               "suite.unit_solutions=2", "--language", "cpp", "--language", "py3",
               *(arg for p in (POSITION, NUMBER, DIGITS) for arg in ("--problem-id", p))]
    ray_tmp = tempfile.mkdtemp(prefix="lr-ray-", dir="/tmp")
    env = {**os.environ, "RAY_TMPDIR": ray_tmp, "LINTEVAL_CACHE_DIR": session_cache_dir}
    env.pop("RAY_ADDRESS", None)
    try:
        first = subprocess.Popen(command, env=env, start_new_session=True, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 900
        while len(list(output.glob("shards/*/*.parquet"))) < 2:
            assert first.poll() is None, "the first run ended before it could be killed"
            assert time.monotonic() < deadline, "no shard written in time"
            time.sleep(0.2)
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
        _kill_ray_processes_under(ray_tmp)
        before = {p.relative_to(output): p.read_bytes() for p in output.glob("shards/*/*.parquet")}

        second = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
        assert second.returncode == 0, second.stderr[-3000:]

        after = {p.relative_to(output): p.read_bytes() for p in output.glob("shards/*/*.parquet")}
        assert all(after[name] == data for name, data in before.items())  # durable units are not judged again
        ids = [row["solution_id"] for row in rows(output)]
        assert len(ids) == len(set(ids)) == 10  # every C++ and Python 3 solution of the three problems exactly once
        assert len(after) > len(before)
    finally:
        _kill_ray_processes_under(ray_tmp)
        shutil.rmtree(ray_tmp, ignore_errors=True)


def test_linteval_problems_are_a_test_source_too(local_ray: None, tmp_path: Path) -> None:
    originals = {json.loads(line)["sample_id"]: json.loads(line) for line in
                 Path(resolve_source("bundled")).read_text().splitlines() if line.strip()}
    pool = tmp_path / "pool.jsonl"
    pool.write_text("".join(json.dumps(row) + "\n" for row in [
        {"problem": "lr01", "language": "cpp", "code": originals["lr01_cpp_1"]["code"], "label": "correct"},
        {"problem": "lr01", "language": "py3", "code": originals["lr01_py3_0"]["code"], "label": "correct"},
        {"problem": "lr01", "language": "cpp", "code": "int main() { return 0; }", "label": "incorrect"},
    ]))

    metrics = suite(tmp_path / "out", 'tests=["bundled"]', f"pools={json.dumps([str(pool)])}",
                    problems=["lr01"]).reduction.metrics

    assert [(p.problem, p.accepted, p.correct, p.rejected, p.incorrect) for p in metrics.problems] == [
        ("lr01", 2, 2, 1, 1)]
    assert {row["solution_id"]: row["tests"] for row in rows(tmp_path / "out")}["lr01/correct/pool.jsonl:1"] > 0
