"""Sandbox uid claims: unique per sandbox on a host, released on close or death."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from linteval_ray.validate.sandbox.base import SandboxError
from linteval_ray.validate.sandbox.uids import claim_uid, processes_of_uid

UIDS = range(61950, 61954)


def test_claims_are_exclusive_and_released(tmp_path: Path) -> None:
    first = claim_uid(UIDS, tmp_path)
    second = claim_uid(UIDS, tmp_path)
    assert first.uid != second.uid
    first.release()
    assert claim_uid(UIDS, tmp_path).uid == first.uid


def test_another_process_gets_another_uid(tmp_path: Path) -> None:
    mine = claim_uid(UIDS, tmp_path)
    code = (
        "from pathlib import Path; from linteval_ray.validate.sandbox.uids import claim_uid, processes_of_uid; "
        f"print(claim_uid(range({UIDS.start}, {UIDS.stop}), Path({str(tmp_path)!r})).uid)"
    )
    theirs = int(subprocess.run([sys.executable, "-c", code], capture_output=True, check=True).stdout)
    assert theirs != mine.uid
    # The other process is gone, so its lock died with it: the uid is free again.
    assert claim_uid(UIDS, tmp_path).uid == theirs


def test_skips_a_uid_that_still_has_processes(tmp_path: Path) -> None:
    if subprocess.run(["id", "-u"], capture_output=True, text=True).stdout.strip() != "0":
        pytest.skip("needs root to start a process as another uid")
    squatter = subprocess.Popen(
        ["setpriv", f"--reuid={UIDS.start}", f"--regid={UIDS.start}", "--clear-groups", "sleep", "300"])
    try:
        while not processes_of_uid(UIDS.start):  # until setpriv has switched uid
            time.sleep(0.01)
        assert claim_uid(UIDS, tmp_path).uid != UIDS.start
    finally:
        squatter.kill()
        squatter.wait()


def test_exhausted_range_is_an_error(tmp_path: Path) -> None:
    claims = [claim_uid(range(61960, 61962), tmp_path) for _ in range(2)]
    with pytest.raises(SandboxError, match="no free sandbox uid"):
        claim_uid(range(61960, 61962), tmp_path)
    assert len({c.uid for c in claims}) == 2


def test_refuses_a_world_writable_lock_dir(tmp_path: Path) -> None:
    tmp_path.chmod(0o777)
    with pytest.raises(SandboxError, match="not group/world-writable"):
        claim_uid(UIDS, tmp_path)
