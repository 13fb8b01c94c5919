"""A worker whose canary fails under Ray: its batch is judged by a fresh worker, the manifest
names it, and a node that keeps failing its canaries stops handing over (no endless restarts)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from linteval_ray.config import RunConfig, load_config
from linteval_ray.pipeline.actor_records import HANDOVERS_PER_NODE
from linteval_ray.pipeline.run import run
from linteval_ray.schema import LintEvalRecord
from linteval_ray.validate.canary import CANARY_SAMPLE, OUT_OF_SERVICE, canary_rows
from linteval_ray.validate.engine import Validator
from linteval_ray.validate.judge import prepare_problem
from tests.pipeline.samples import expectations

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]


def _config(output: Path, samples: list[str], *overrides: str) -> RunConfig:
    return load_config(None, [f"output={json.dumps(str(output))}", "dataset.source=bundled",
                              f"dataset.sample_ids={json.dumps(samples)}", "validation.pool.batch_size=1",
                              "validation.pool.store_batch_size=1", "validation.pool.max_actors=1",
                              "validation.canary_every_batches=1000", *overrides])


def _samples() -> list[str]:
    """Samples of the canary's own problem (lr01): its tools are built once for both."""
    return [s for s in sorted(expectations()) if s.startswith("lr01_")][:3]


def _records(output: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((output / "out-of-service").glob("*.json"))]


def _rows(output: Path) -> list[dict]:
    return pq.read_table(output / "results.parquet").to_pylist()


def _shard_row_ids(output: Path) -> list[str]:
    return sorted(rid for shard in (output / "shards").glob("*.parquet")
                  for rid in pq.read_table(shard, columns=["row_id"]).column("row_id").to_pylist())


@pytest.fixture
def corrupt_canary_answers(tmp_path: Path) -> Iterator[tuple[RunConfig, dict[Path, bytes]]]:
    """The node's cached reference answers of the canary's problem overwritten with wrong numbers,
    as a corrupted node cache would be; the fixture puts the right ones back afterwards."""
    config = _config(tmp_path / "out", _samples())
    validator = Validator(config.validation)  # the actors' keys: same limits, toolchain and cache dir
    try:
        canary = LintEvalRecord.model_validate_json(canary_rows()[0][0]["record_json"])
        reference = prepare_problem(canary, validator.judge).reference.directory
    finally:
        validator.close()
    answers = {path: path.read_bytes() for path in sorted(reference.glob("*.ans"))}
    assert answers
    for path in answers:
        path.write_bytes(b"-12345\n")
    yield config, answers
    for path, data in answers.items():
        path.write_bytes(data)


@pytest.mark.usefixtures("local_ray")
def test_a_worker_that_fails_its_canary_hands_its_rows_to_a_fresh_worker(
        corrupt_canary_answers: tuple[RunConfig, dict[Path, bytes]]) -> None:
    config, answers = corrupt_canary_answers
    output = Path(config.output or "")
    repaired = threading.Event()

    def repair_once_a_worker_is_out(stop: threading.Event) -> None:
        """The operator's fix, once the broken worker has reported itself (and exited)."""
        while not stop.wait(0.05):
            if _records(output):
                for path, data in answers.items():
                    path.write_bytes(data)
                repaired.set()
                return

    stop = threading.Event()
    watcher = threading.Thread(target=repair_once_a_worker_is_out, args=(stop,), daemon=True)
    watcher.start()
    try:
        outcome = run(config)
    finally:
        stop.set()
        watcher.join()

    assert repaired.is_set(), "no worker failed its canary"
    (record,) = _records(output)
    assert record["handed_over"] is True and CANARY_SAMPLE in record["reason"], record
    broken = record["worker"]
    rows = _rows(output)
    assert _shard_row_ids(output) == sorted(f"{s}/0" for s in _samples())  # every sample, exactly once
    assert outcome.reduction.duplicates == 0
    assert all(r["status"] == "evaluated" for r in rows), [(r["row_id"], r["error"]) for r in rows]
    assert broken not in {r["worker"] for r in rows}  # scored by the fresh worker, not the broken one
    manifest = json.loads((output / "manifest.json").read_text())
    assert manifest["out_of_service"] == {broken: record["reason"]}


@pytest.mark.usefixtures("local_ray")
def test_a_node_that_keeps_failing_its_canaries_stops_handing_over(tmp_path: Path) -> None:
    """A time limit no program meets stands in for a node that is broken for good: its workers
    hand over twice, then the next one answers every row infra_error, and the run ends."""
    output = tmp_path / "out"
    started = time.monotonic()
    run(_config(output, _samples(), "validation.limits.time_floor_s=0.001", "validation.limits.time_factor=0.001"))
    records = _records(output)
    assert sorted(r["handed_over"] for r in records) == [False] + [True] * HANDOVERS_PER_NODE, records
    assert len({r["node"] for r in records}) == 1
    rows = _rows(output)
    assert _shard_row_ids(output) == sorted(f"{s}/0" for s in _samples())
    assert all(r["status"] == "infra_error" and r["error"].startswith(OUT_OF_SERVICE) for r in rows), rows
    last = next(r["worker"] for r in records if not r["handed_over"])
    assert {r["worker"] for r in rows} == {last}
    manifest = json.loads((output / "manifest.json").read_text())
    assert set(manifest["out_of_service"]) == {r["worker"] for r in records}
    assert time.monotonic() - started < 900
