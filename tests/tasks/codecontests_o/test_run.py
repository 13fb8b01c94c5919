"""``linteval-ray run`` of CodeContests-O on a local Ray: the bundled split (two files) with its solutions;
rows that cannot be judged beside good ones (a row without tests, a checker that does not compile, a
100 MB row); resumed exactly once; the metrics, the manifest's data identity and the results browser
in a real Chromium (tests/report/test_site.py's helpers)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from linteval_ray.config import load_config
from linteval_ray.pipeline.run import run
from linteval_ray.store.folder import RunFolder
from tests.report.test_site import needs_chromium, open_page
from tests.tasks.codecontests_o.rows import bundled_solutions, problem, sum_problem, write_split

pytestmark = pytest.mark.slow
BROKEN_CHECKER = '#include "testlib.h"\nint main(int argc, char* argv[]) { registerTestlibCmd(argc, argv) }\n'
SUM_CPP = ("#include <cstdio>\n"
           "int main() { long long a, b; scanf(\"%lld %lld\", &a, &b); printf(\"%lld\\n\", a + b); }\n")


def config_of(source: str, answers: Path, out: Path, *overrides: str):  # type: ignore[no-untyped-def]
    return load_config(None, [f"dataset.source={json.dumps(source)}", f"output={json.dumps(str(out))}",
                              f"generation.replay.predictions={json.dumps(str(answers))}",
                              "validation.pool.max_actors=2", *overrides])


def write_answers(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


@pytest.fixture(scope="module")
def bundled_run(local_ray: None, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """The bundled split's C++ solutions, run once (two draws: the correct one, the incorrect one);
    the first answer given as a response with its reasoning."""
    tmp = tmp_path_factory.mktemp("bundled-run")
    solutions = bundled_solutions(("cpp",))
    code = solutions[0]["revised_code"]
    reasoned = dict(solutions[0], revised_code=None,
                    raw_response=f"<think>Add them, in 64 bits.</think>\n```cpp\n{code}```")
    out = tmp / "run"
    outcome = run(config_of("codecontests-o:bundled", write_answers(tmp / "answers.jsonl", [reasoned, *solutions[1:]]),
                            out, "generation.n=2"))
    return out, outcome.new_rows


def test_the_bundled_split_runs_and_reduces(bundled_run: tuple[Path, int]) -> None:
    out, new_rows = bundled_run
    rows = {r["row_id"]: r for r in pq.read_table(out / "results.parquet").to_pylist()}
    assert new_rows == len(rows) == 18
    assert {r: rows[r]["verdict"] or rows[r]["status"] for r in rows} == {
        f"{s['sample_id']}/{s['draw']}": s["expected"]["strict"] for s in bundled_solutions(("cpp",))}
    metrics = json.loads((out / "metrics.json").read_text())
    cco = metrics["task_metrics"]
    assert metrics["task"] == "codecontests-o" and cco["overall"]["draws"] == 2
    assert set(cco["overall"]["pass_at_k"]) == {"pass@1", "pass@2"} and cco["overall"]["pass_at_k"]["pass@2"]["ci"]
    assert set(cco["by_facet"]["difficulty"]) == {"A", "B", "C", "D"}
    assert len(cco["problems"]) == 9
    manifest = json.loads((out / "manifest.json").read_text())
    assert [f["file"] for f in manifest["dataset_identity"]["files"]] == [
        "test-00000-of-00002.parquet", "test-00001-of-00002.parquet"]
    assert manifest["fingerprint_parts"]["task"]["name"] == "codecontests-o"
    assert manifest["cache"]["given-tests"]["puts"] == 0  # stored by the read, found by every worker
    assert manifest["cache"]["given-tests"]["hits"] >= 9


@needs_chromium
def test_a_row_page_shows_the_statement_the_failure_and_the_reasoning(bundled_run: tuple[Path, int],
                                                                      tmp_path: Path) -> None:
    site = Path(RunFolder.open(str(bundled_run[0])).site)
    assert "1001_A. Sum of Pairs/cpp/0" in open_page(site / "index.html", tmp=tmp_path).text()
    page = open_page(site / "sample.html", fragment="1001_A. Sum of Pairs/cpp/1", tmp=tmp_path)
    assert "print a + b" in page.by_id("statement").text()
    assert page.by_id("verdict").text() == "wrong_answer"
    assert page.by_id("failure-expected").text().startswith("2000000000000")  # the expected answer
    first = open_page(site / "sample.html", fragment="1001_A. Sum of Pairs/cpp/0", tmp=tmp_path)
    assert "Add them, in 64 bits." in first.by_id("reasoning").text()  # collapsed, in a <details>


def test_rows_that_cannot_be_judged_are_named_and_a_rerun_adds_nothing(local_ray: None, tmp_path: Path) -> None:
    big = "1 2\n" + "9" * (100 << 20)  # a 100 MB input: its answer is the sum of its first two numbers
    rows = [sum_problem("Good"), {**sum_problem("No tests"), "corner_cases": []},
            sum_problem("Broken checker", checker=BROKEN_CHECKER), problem("Huge", [(big, "3\n")])]
    source = write_split(tmp_path / "split", rows, files=2)
    answers = write_answers(tmp_path / "answers.jsonl", [{"sample_id": f"{p['name']}/cpp", "draw": 0,
                                                          "revised_code": SUM_CPP} for p in rows])
    out = tmp_path / "run"
    first = run(config_of(source, answers, out))

    results = {r["sample_id"]: r for r in pq.read_table(out / "results.parquet").to_pylist()}
    assert first.new_rows == 4
    assert results["Good/cpp"]["verdict"] == results["Huge/cpp"]["verdict"] == "passed"
    assert results["No tests/cpp"]["status"] == "invalid_input"
    assert "field 'corner_cases': problem 'No tests': no tests" in results["No tests/cpp"]["error"]
    assert results["Broken checker/cpp"]["status"] == "invalid_problem"
    broken = results["Broken checker/cpp"]["error"]
    assert "checker_compile_error: field 'checker' of problem 'Broken checker'" in broken

    again = run(config_of(source, answers, out))  # resumed: every row is done, exactly once
    assert (again.resumed_rows, again.new_rows, again.reduction.duplicates) == (4, 0, 0)
    shards = list((out / "shards").glob("*.parquet"))
    victim = next(s for s in shards if "Good/cpp/0" in pq.read_table(s, columns=["row_id"]).column(0).to_pylist())
    lost = pq.read_table(victim).num_rows
    victim.unlink()  # a shard lost: its rows are judged again, the others are not
    third = run(config_of(source, answers, out))
    assert (third.resumed_rows, third.new_rows) == (4 - lost, lost)
    assert sorted(pq.read_table(out / "results.parquet").column("row_id").to_pylist()) == sorted(
        f"{r['name']}/cpp/0" for r in rows)
