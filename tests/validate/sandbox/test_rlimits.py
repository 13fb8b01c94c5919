"""RlimitSandbox: refuses unless explicitly allowed; when allowed, still enforces limits."""

from __future__ import annotations

import logging
import os
import signal
import time
import uuid
from pathlib import Path

import pytest

from linteval_ray.validate.sandbox import RlimitSandbox, RunLimits, SandboxError

PYTHON = "/usr/bin/python3"


@pytest.fixture(scope="module")
def unsafe() -> RlimitSandbox:
    return RlimitSandbox(allow_unsafe=True)


def test_refuses_without_allow_unsafe() -> None:
    with pytest.raises(SandboxError, match="allow_unsafe_sandbox"):
        RlimitSandbox()


def test_warns_loudly_when_allowed(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        RlimitSandbox(allow_unsafe=True)
    assert any("UNSAFE SANDBOX" in rec.getMessage() for rec in caplog.records)


def test_runs_in_the_workdir_with_stdin(unsafe: RlimitSandbox, tmp_path: Path) -> None:
    r = unsafe.run(["/bin/sh", "-c", "cat > got.txt; echo done"], workdir=tmp_path, limits=RunLimits(wall_s=10),
                   stdin=b"abc")
    assert r.ok and r.stdout == b"done\n"
    assert (tmp_path / "got.txt").read_bytes() == b"abc"


def test_wall_timeout_kills_the_process_group(unsafe: RlimitSandbox, tmp_path: Path) -> None:
    r = unsafe.run(["/bin/sh", "-c", "sleep 300 & echo $!; sleep 300"], workdir=tmp_path, limits=RunLimits(wall_s=1))
    assert r.timed_out and r.exit_code is None
    assert wait_until_dead(int(r.stdout))


def wait_until_dead(pid: int, patience_s: float = 10.0) -> bool:
    """SIGKILL is delivered asynchronously: allow the killed process a moment to die."""
    deadline = time.monotonic() + patience_s
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        except FileNotFoundError:
            return True
        if state in (b"Z", b"X"):
            return True
        time.sleep(0.01)
    return False


def test_cpu_limit(unsafe: RlimitSandbox, tmp_path: Path) -> None:
    r = unsafe.run([PYTHON, "-c", "while True: pass"], workdir=tmp_path, limits=RunLimits(wall_s=120, cpu_s=1))
    assert r.timed_out and r.signal == signal.SIGXCPU


def test_memory_limit(unsafe: RlimitSandbox, tmp_path: Path) -> None:
    r = unsafe.run([PYTHON, "-c", "x = bytearray(1 << 30)"], workdir=tmp_path,
                   limits=RunLimits(wall_s=30, memory_mb=256))
    assert r.exit_code == 1 and b"MemoryError" in r.stderr


def test_output_cap(unsafe: RlimitSandbox, tmp_path: Path) -> None:
    limits = RunLimits(wall_s=120, output_bytes=1 << 20)
    r = unsafe.run(["/bin/sh", "-c", "head -c 10G /dev/zero"], workdir=tmp_path, limits=limits)
    assert r.output_exceeded and not r.timed_out and len(r.stdout) == 1 << 20


def test_environment_is_scrubbed(unsafe: RlimitSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = f"PLANTED-{uuid.uuid4().hex}"
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", secret)
    r = unsafe.run(["/usr/bin/env"], workdir=tmp_path, limits=RunLimits(wall_s=10), env={"GIVEN": "yes"})
    assert secret.encode() not in r.stdout
    assert b"GIVEN=yes" in r.stdout and f"HOME={tmp_path}".encode() in r.stdout


def test_cannot_mount_elsewhere(unsafe: RlimitSandbox, tmp_path: Path) -> None:
    from linteval_ray.validate.sandbox import Mount

    with pytest.raises(SandboxError, match="same path"):
        unsafe.run(["/bin/true"], workdir=tmp_path, limits=RunLimits(wall_s=5),
                   mounts=[Mount(src=tmp_path, dst="/inc")])
    same = Mount(src=tmp_path, dst=os.fspath(tmp_path.resolve()))
    assert unsafe.run(["/bin/true"], workdir=tmp_path, limits=RunLimits(wall_s=5), mounts=[same]).ok


def test_peak_memory_is_the_programs_own(unsafe: RlimitSandbox, tmp_path: Path) -> None:
    ballast = bytearray(b"x" * (700 << 20))
    r = unsafe.run([PYTHON, "-c", "x = b'y' * (50 << 20)"], workdir=tmp_path,
                   limits=RunLimits(wall_s=30, memory_mb=1024))
    del ballast
    assert r.ok and r.peak_rss_mb is not None and 50 < r.peak_rss_mb < 90
