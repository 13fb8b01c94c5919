"""A run whose driver is SIGKILLed mid-way, started again, ends with every sample exactly once
and recomputes none of the rows that were already durably written."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.pipeline.samples import expectations

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]


def _command(output: Path, samples: list[str]) -> list[str]:
    cmd = [sys.executable, "-m", "linteval_ray", "run", "--dataset", "bundled", "--output", str(output),
           "--set", "validation.pool.batch_size=1", "--set", "validation.pool.store_batch_size=1"]
    for sample in samples:
        cmd += ["--sample-id", sample]
    return cmd


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


def _shards(output: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((output / "shards").glob("*.parquet"))}


def _row_ids(data: bytes) -> list[str]:
    import io

    return pq.read_table(io.BytesIO(data), columns=["row_id"]).column("row_id").to_pylist()


def test_driver_sigkill_then_resume_gives_each_sample_once(tmp_path: Path, session_cache_dir: str):
    samples = sorted(expectations())[:6]
    output = tmp_path / "out"
    ray_tmp = tempfile.mkdtemp(prefix="lr-ray-", dir="/tmp")
    env = {**os.environ, "RAY_TMPDIR": ray_tmp, "LINTEVAL_CACHE_DIR": session_cache_dir}
    env.pop("RAY_ADDRESS", None)
    try:
        first = subprocess.Popen(_command(output, samples), env=env, start_new_session=True,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 900
        while len(list(output.glob("shards/*.parquet"))) < 2:
            assert first.poll() is None, "the first run ended before it could be killed"
            assert time.monotonic() < deadline, "no shard written in time"
            time.sleep(0.2)
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
        _kill_ray_processes_under(ray_tmp)
        before = _shards(output)
        done_before = {rid for data in before.values() for rid in _row_ids(data)}
        assert 2 <= len(done_before) < len(samples)

        second = subprocess.run(_command(output, samples), env=env, capture_output=True, text=True,
                                timeout=900)
        assert second.returncode == 0, second.stderr[-3000:]
        assert f"{len(done_before)} already done" in second.stderr

        after = _shards(output)
        for name, data in before.items():  # what was durably written stays, byte for byte
            assert after[name] == data
        new_ids = [rid for name, data in after.items() if name not in before for rid in _row_ids(data)]
        assert not set(new_ids) & done_before, "a completed row was recomputed"
        all_ids = sorted([*done_before, *new_ids])
        assert all_ids == sorted(f"{s}/0" for s in samples)  # each sample exactly once
        results = pq.read_table(output / "results.parquet").column("row_id").to_pylist()
        assert sorted(results) == all_ids
    finally:
        _kill_ray_processes_under(ray_tmp)
        shutil.rmtree(ray_tmp, ignore_errors=True)


def _fail_as_infra(shard: Path, row_id: str) -> None:
    """What an infrastructure fault leaves behind: the row written as ``infra_error``, unjudged."""
    table = pq.read_table(shard)
    rows = table.to_pylist()
    for row in rows:
        if row["row_id"] == row_id:
            row.update(status="infra_error", verdict=None, pass_at_1=None, error="sandbox: box set-up failed")
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), shard)


def test_a_rerun_judges_infra_error_rows_again_and_keeps_the_rest(tmp_path: Path, session_cache_dir: str):
    samples = sorted(expectations())[:2]
    output = tmp_path / "out"
    env = {**os.environ, "LINTEVAL_CACHE_DIR": session_cache_dir}
    first = subprocess.run(_command(output, samples), env=env, capture_output=True, text=True, timeout=900)
    assert first.returncode == 0, first.stderr[-3000:]
    judged = {r["row_id"]: r for r in pq.read_table(output / "results.parquet").to_pylist()}
    failed, kept = f"{samples[0]}/0", f"{samples[1]}/0"
    [shard] = [p for p in (output / "shards").glob("*.parquet") if failed in _row_ids(p.read_bytes())]
    _fail_as_infra(shard, failed)
    kept_shards = {name: data for name, data in _shards(output).items() if name != shard.name}

    second = subprocess.run(_command(output, samples), env=env, capture_output=True, text=True, timeout=900)
    assert second.returncode == 0, second.stderr[-3000:]
    assert "1 already done" in second.stderr  # the infra_error row is not done: it is judged again
    results = {r["row_id"]: r for r in pq.read_table(output / "results.parquet").to_pylist()}
    assert sorted(results) == sorted(judged)  # each sample once: the retry replaced its failure
    assert results[failed]["status"] == "evaluated"
    assert (results[failed]["verdict"], results[failed]["pass_at_1"]) == (judged[failed]["verdict"],
                                                                          judged[failed]["pass_at_1"])
    assert results[kept] == judged[kept]
    assert all(_shards(output)[name] == data for name, data in kept_shards.items())  # not recomputed
