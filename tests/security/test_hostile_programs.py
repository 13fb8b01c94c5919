"""Hostile revisions through ``Validator`` (what a validation worker runs): each one is
contained, classed, leaks nothing into its result row, and the samples after it are judged
normally.

Two Validators serve the whole module, C++'s cases beside Python's and Java's. A fake
``AWS_SECRET_ACCESS_KEY`` is planted in the environment before they are created and host files
are planted where programs aim. Each language's cases go through its Validator as ONE batch, as a
worker gets them (one linter process for the batch, then judged one after the other), followed by
a good revision.
Per case the test checks: the verdict class, that the planted secrets (and the host's
``/etc/shadow``) appear in no field of the serialized row, that every later sample of the
batch was judged normally, that the planted files are intact, that no process of a sandbox
uid survived, and that the loopback listener saw no connection.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import subprocess
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from linteval_ray.config import PoolConfig, TestLimits, ValidationConfig
from linteval_ray.schema import LintEvalRecord, ResultRow, Status, Verdict
from linteval_ray.schema.arrow import rows_to_table
from linteval_ray.validate.engine import Validator
from linteval_ray.validate.sandbox.uids import LOCK_DIR, UID_RANGE, _proc_owners
from tests.security.corpus import CORPUS, Case, Targets

# One module-wide fixture judges every case (~1.5 min idle; far more on a loaded host).
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

SECRET = f"PLANTED-{uuid.uuid4().hex}"
FILE_SECRET = f"PLANTED-FILE-{uuid.uuid4().hex}"
# Small limits keep the module fast: a run's default 2 s per test (a sleeper or a fork bomb costs
# two wall caps of 13 s), 256 MB, 1 MB of output (so the problem's 4 largest inputs are dropped:
# 6 tests). Compile and lint timeouts stay at their defaults: a loaded machine must not turn them
# into verdicts.
LIMITS = TestLimits(time_floor_s=2.0, time_factor=3.0, memory_mb=256, output_mb=1, reference_time_limit_s=10.0)




# The corpus in two streams judged at the same time, each by a Validator of its own: C++'s (its
# sleepers and fork bomb spend ~90 s of wall clock at their caps, little CPU) beside Python's and Java's.
STREAMS = (("cpp",), ("py3", "java"))


@pytest.fixture(scope="module")
def validators(session_cache_dir: str) -> Iterator[dict[str, Validator]]:
    """Language -> the Validator judging its cases."""
    previous = os.environ.get("AWS_SECRET_ACCESS_KEY")
    os.environ["AWS_SECRET_ACCESS_KEY"] = SECRET  # before the Validators: they must never pass it on
    config = ValidationConfig(limits=LIMITS, pool=PoolConfig(num_cpus=1))
    made = [Validator(config) for _ in STREAMS]
    yield {language: validator for stream, validator in zip(STREAMS, made, strict=True) for language in stream}
    for validator in made:
        validator.close()
    if previous is None:
        os.environ.pop("AWS_SECRET_ACCESS_KEY", None)
    else:
        os.environ["AWS_SECRET_ACCESS_KEY"] = previous


@pytest.fixture(scope="module")
def listener() -> Iterator[socket.socket]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    sock.setblocking(False)
    yield sock
    sock.close()


@pytest.fixture(scope="module")
def sentinel() -> Iterator[subprocess.Popen]:
    proc = subprocess.Popen(["sleep", "3600"])
    yield proc
    proc.kill()
    proc.wait()


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory, validators: dict[str, Validator]) -> dict[Path, bytes]:
    """Files a program aims at, world-readable (only the sandbox can keep programs out)."""
    root = tmp_path_factory.mktemp("planted")
    other_work = validators["cpp"]._scratch / "run-other-sample"
    other_work.mkdir()
    files = {
        root / "secret.txt": FILE_SECRET.encode(),
        root / "runs" / "r1" / "results.jsonl": f'{{"answer": "{FILE_SECRET}"}}'.encode(),
        other_work / "answer.txt": FILE_SECRET.encode(),
    }
    for path, data in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        os.chmod(path, 0o644)
    return files


@pytest.fixture(scope="module")
def targets(listener, sentinel, planted, session_cache_dir: str) -> Targets:
    secret_file, output_file, other_work_file = planted
    return Targets(port=listener.getsockname()[1], sentinel_pid=sentinel.pid, validator_pid=os.getpid(),
                   planted_file=str(secret_file), output_file=str(output_file),
                   other_work_file=str(other_work_file), cache_dir=session_cache_dir)


def _row(record: LintEvalRecord, code: str, draw: int) -> dict:
    return {"record_json": record.model_dump_json(), "draw": draw, "revised_code": code, "model": "hostile"}


def _shadow_lines() -> list[str]:
    """Lines of the host's /etc/shadow worth searching for (with a hash or a long body)."""
    try:
        lines = Path("/etc/shadow").read_text().splitlines()
    except OSError:
        return []
    return [line for line in lines if len(line) > 12]


def _leftover_sandbox_processes(own_uids: list[int]) -> list[tuple[int, int]]:
    """Every process of our own sandbox uids, and of sandbox uids nobody holds any more (a
    live sandbox of another test session on this host holds its uid's lock)."""
    leftovers = []
    for pid, uid in _proc_owners():
        if uid not in UID_RANGE:
            continue
        if uid in own_uids or not _uid_is_claimed(uid):
            leftovers.append((pid, uid))
    return leftovers


def _uid_is_claimed(uid: int) -> bool:
    try:
        fd = os.open(LOCK_DIR / f"{uid}.lock", os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # also drops the lock if we got it
    return False


def _accepted_connection(listener: socket.socket) -> bool:
    try:
        conn, _ = listener.accept()
    except BlockingIOError:
        return False
    conn.close()
    return True


@pytest.fixture(scope="module")
def judged(validators: dict[str, Validator], records, targets: Targets
           ) -> dict[tuple[str, str], tuple[ResultRow, ResultRow]]:
    """(language, case name) -> (its row, the good revision judged after the whole batch)."""

    def judge_stream(stream: tuple[str, ...]) -> dict[tuple[str, str], tuple[ResultRow, ResultRow]]:
        results = {}
        for language in stream:
            record = records[language]
            cases = [c for c in CORPUS if c.language == language]
            rows = [_row(record, targets.fill(c.code), draw) for draw, c in enumerate(cases)]
            *hostile, good = validators[language].evaluate_batch([*rows, _row(record, record.code, len(rows))])
            results.update({(language, c.name): (row, good) for c, row in zip(cases, hostile, strict=True)})
        return results

    with ThreadPoolExecutor(len(STREAMS)) as pool:
        return {key: value for found in pool.map(judge_stream, STREAMS) for key, value in found.items()}


def _params() -> list:
    return [pytest.param(c, id=f"{c.language}-{c.name}") for c in CORPUS]


@pytest.mark.parametrize("case", _params())
def test_hostile_revision_is_contained(case: Case, judged, validators: dict[str, Validator], targets: Targets,
                                       planted: dict[Path, bytes], listener: socket.socket,
                                       sentinel: subprocess.Popen) -> None:
    hostile, good = judged[(case.language, case.name)]

    assert hostile.status == Status.EVALUATED, hostile.error
    assert hostile.verdict in case.verdicts, hostile.validation_error
    assert not hostile.pass_at_1
    # the run goes on: the batch's later samples got their own verdicts, and the good one passed
    assert (good.status, good.verdict) == (Status.EVALUATED, Verdict.PASSED), good.validation_error or good.error
    assert good.tests_passed == good.tests_generated - good.tests_dropped > 0

    serialized = _serialized(hostile) + _serialized(good)
    assert SECRET not in serialized and FILE_SECRET not in serialized
    for line in _shadow_lines():
        assert line not in serialized, "/etc/shadow leaked into the result row"

    for path, data in planted.items():
        assert path.read_bytes() == data, f"{path} was changed"
    for path in ("/usr/lib/linteval-pwned", "/etc/linteval-pwned", "/linteval-pwned",
                 f"{targets.cache_dir}/poison"):
        assert not os.path.exists(path)
    assert Path(targets.cache_dir).is_dir() and any(Path(targets.cache_dir).rglob("*.ans"))
    assert sentinel.poll() is None, "a host process was killed"
    assert not _accepted_connection(listener), "the program reached a host listener"
    assert _leftover_sandbox_processes([uid for v in validators.values() for uid in v.sandbox.uids]) == []


def _serialized(row: ResultRow) -> str:
    """Every field of the row as the pipeline stores it (JSON and Arrow)."""
    table = rows_to_table([row])
    return row.model_dump_json() + json.dumps(table.to_pylist(), default=str)
