"""Faults during a run: a validation actor SIGKILLed mid-batch, the S3 server killed and
restarted mid-run, the work dir's disk full. Nothing is lost, nothing is duplicated,
nothing hangs, and what failed says why."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from linteval_ray.config import RunConfig, TestLimits, ValidationConfig, load_config
from linteval_ray.pipeline.run import run
from linteval_ray.schema import LintEvalRecord, Status, Verdict
from linteval_ray.store import ObjectStore
from linteval_ray.validate.cache import ContentCache
from linteval_ray.validate.engine import Validator
from linteval_ray.validate.sandbox.uids import UID_RANGE, _proc_owners
from tests.pipeline.samples import bundled_jsonl, expectations

# A hang fails the test (pytest-timeout) instead of blocking the suite.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]

WATCH_TIMEOUT_S = 900.0


def _samples(count: int) -> list[str]:
    """Bundled samples of the first problems (few tool compiles), in id order."""
    return sorted(expectations())[:count]


def _config(output: str, samples: list[str], *overrides: str) -> RunConfig:
    return load_config(None, [f"output={json.dumps(output)}", "dataset.source=bundled",
                              f"dataset.sample_ids={json.dumps(samples)}", "validation.pool.batch_size=1",
                              "validation.pool.store_batch_size=1", *overrides])


def _in_background(watch: Callable[[threading.Event], None]) -> tuple[threading.Thread, threading.Event]:
    done = threading.Event()
    thread = threading.Thread(target=watch, args=(done,), daemon=True)
    thread.start()
    return thread, done


# -- (a) a validation actor killed while it works -----------------------------------------------


def _descends_from(pid: int, ancestor: int) -> bool:
    while pid > 1:
        if pid == ancestor:
            return True
        pid = _parent(pid)
    return False


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _busy_validation_actor() -> int | None:
    """A ValidateBatch actor of OUR Ray (a descendant of this process) that is running a
    sandboxed program right now: its child is the sandbox, i.e. ``prlimit`` for the instant
    before it execs, then ``bwrap`` (or the program itself under the rlimits backend)."""
    pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    actors = {pid for pid in pids
              if _cmdline(pid).startswith("ray::") and "ValidateBatch" in _cmdline(pid)
              and _descends_from(pid, os.getpid())}
    for pid in pids:
        if _parent(pid) in actors and _is_sandboxed_program(_cmdline(pid)):
            return _parent(pid)
    return None


def _is_sandboxed_program(cmdline: str) -> bool:
    # The actor's other child is the warm pylint worker, a Python process.
    return bool(cmdline) and "python" not in cmdline.split(" ", 1)[0]


def _parent(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return -1


@pytest.mark.usefixtures("local_ray")
def test_validation_actor_killed_mid_batch_its_samples_finish_exactly_once(tmp_path: Path) -> None:
    samples = _samples(6)
    killed: list[int] = []

    def kill_one_busy_actor(done: threading.Event) -> None:
        deadline = time.monotonic() + WATCH_TIMEOUT_S
        while not done.is_set() and time.monotonic() < deadline:
            actor = _busy_validation_actor()
            if actor is not None:
                os.kill(actor, signal.SIGKILL)
                killed.append(actor)
                return
            time.sleep(0.05)

    thread, done = _in_background(kill_one_busy_actor)
    try:
        outcome = run(_config(str(tmp_path / "out"), samples, "validation.pool.max_actors=1"))
    finally:
        done.set()
        thread.join()

    assert killed, "no busy validation actor was found to kill"
    out = Path(outcome.output)
    shard_ids = [rid for shard in sorted((out / "shards").glob("*.parquet"))
                 for rid in pq.read_table(shard, columns=["row_id"]).column("row_id").to_pylist()]
    assert sorted(shard_ids) == sorted(f"{s}/0" for s in samples)  # every sample, exactly once
    assert outcome.reduction.duplicates == 0
    rows = pq.read_table(out / "results.parquet").to_pylist()
    assert all(r["status"] == "evaluated" for r in rows), [(r["row_id"], r["error"]) for r in rows]
    workers = {r["worker"].rsplit(":", 1)[1] for r in rows}
    assert workers - {str(killed[0])}, workers  # a restarted actor took over the rest


# -- (b) the object store killed and restarted mid-run ------------------------------------------


@pytest.mark.usefixtures("local_ray")
def test_s3_server_killed_and_restarted_mid_run_loses_and_duplicates_nothing(s3_server, s3_bucket: str) -> None:
    samples = _samples(6)
    storage = s3_server.storage_config()
    output = f"{s3_bucket}/runs/outage"
    bucket = s3_bucket.removeprefix("s3://")
    outages: list[float] = []

    def restart_after_first_shard(done: threading.Event) -> None:
        client = s3_server.client()
        deadline = time.monotonic() + WATCH_TIMEOUT_S
        while not done.is_set() and time.monotonic() < deadline:
            try:
                listed = client.list_objects_v2(Bucket=bucket, Prefix="runs/outage/shards/")
            except Exception:  # noqa: BLE001 - the server may be starting
                listed = {}
            if listed.get("KeyCount", 0) >= 1:
                began = time.monotonic()
                s3_server.kill()
                time.sleep(3.0)  # the pipeline keeps working (and writing) against a dead endpoint
                s3_server.start()
                outages.append(time.monotonic() - began)
                return
            time.sleep(0.1)

    thread, done = _in_background(restart_after_first_shard)
    try:
        outcome = run(_config(output, samples, f"storage.endpoint_url={storage.endpoint_url}",
                              f"storage.key={storage.key}", f"storage.secret={storage.secret}",
                              f"storage.region={storage.region}"))
    finally:
        done.set()
        thread.join()
        s3_server.ensure_running()

    assert outages, "the server was never restarted mid-run"
    fs, root = ObjectStore(storage=storage).filesystem(output)
    shard_ids = []
    for path in fs.ls(f"{root}/shards", detail=False):
        with fs.open(path, "rb") as f:
            shard_ids += pq.read_table(f, columns=["row_id"]).column("row_id").to_pylist()
    assert sorted(shard_ids) == sorted(f"{s}/0" for s in samples)  # none lost, none twice
    assert outcome.reduction.duplicates == 0 and outcome.reduction.rows == len(samples)
    with fs.open(f"{root}/results.parquet", "rb") as f:
        assert pq.read_table(f).num_rows == len(samples)
    uploads = s3_server.client().list_multipart_uploads(Bucket=bucket)
    assert not uploads.get("Uploads"), "orphaned multipart uploads"


# -- (c) the work dir's disk fills up -----------------------------------------------------------


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 32 MiB tmpfs (needs root: the sandbox needs it anyway)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=32m,mode=0755", "tmpfs", str(mount)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(disk: Path, leave_bytes: int) -> Path:
    """A ballast file that leaves about ``leave_bytes`` free on ``disk``."""
    ballast = disk / "ballast"
    stat = os.statvfs(disk)
    size = max(0, stat.f_bavail * stat.f_frsize - leave_bytes)
    with ballast.open("wb") as f:
        f.truncate(0)
        chunk = b"\0" * (1 << 20)
        while size > 0:
            size -= f.write(chunk[: min(len(chunk), size)])
    return ballast


def test_full_work_disk_gives_infra_errors_then_recovers(small_disk: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Scratch (TMPDIR) on a small tmpfs, a fresh content cache on a healthy disk: with the
    tmpfs nearly full the problem's testlib tools cannot be linked. That is the host's
    fault: an infra_error naming the full disk, not an invalid problem, and nothing is
    cached as a compile error; once space is back the same worker judges normally."""
    monkeypatch.setattr(tempfile, "tempdir", str(small_disk))
    monkeypatch.setenv("TMPDIR", str(small_disk))
    monkeypatch.setenv("LINTEVAL_CACHE_DIR", str(tmp_path / "cache"))
    record = next(LintEvalRecord.model_validate_json(line) for line in bundled_jsonl().read_text().splitlines()
                  if json.loads(line)["sample_id"] == "lr01_cpp_0")
    row = {"record_json": record.model_dump_json(), "draw": 0, "revised_code": record.code}
    validator = Validator(ValidationConfig(limits=TestLimits(time_floor_s=2.0)))
    uids = validator.sandbox.uids
    try:
        ballast = _fill(small_disk, leave_bytes=256 << 10)  # room for sources, not for a testlib binary
        started = time.monotonic()
        (full,) = validator.evaluate_batch([row])
        assert time.monotonic() - started < 600, "a full disk must not hang the worker"
        assert full.status == Status.INFRA_ERROR, (full.status, full.error)
        assert "No space left on device" in full.error and full.verdict == Verdict.INFRA_ERROR

        ballast.unlink()
        (healthy,) = validator.evaluate_batch([row])
        assert (healthy.status, healthy.verdict) == (Status.EVALUATED, Verdict.PASSED), healthy.error
    finally:
        validator.close()
    assert all(uid in UID_RANGE for uid in uids)
    assert [(pid, uid) for pid, uid in _proc_owners() if uid in uids] == []


def test_a_cache_entry_that_does_not_fit_leaves_nothing_half_written(small_disk: Path, tmp_path: Path) -> None:
    cache = ContentCache(None, small_disk / "cache")
    source = tmp_path / "tests"
    source.mkdir()
    (source / "01.in").write_bytes(os.urandom(2 << 20))
    key = ContentCache.key("tests", problem="p")
    ballast = _fill(small_disk, leave_bytes=512 << 10)

    with pytest.raises(OSError, match="No space left"):
        cache.put_dir(key, source)
    assert [p for p in (small_disk / "cache").rglob("*") if p.is_file() or p.name.startswith(".tmp-")] == []
    assert cache.get_dir(key) is None

    ballast.unlink()
    stored = cache.put_dir(key, source)
    assert cache.get_dir(key) == stored and (stored / "01.in").read_bytes() == (source / "01.in").read_bytes()
