"""Revisions that attack the evaluator's state and bookkeeping rather than escape the box:
kernel state left for later runs, forged infrastructure errors, unbounded scratch space,
trees cleanup cannot delete, terminal escapes and host paths in result text.

One Validator judges every case of this module, in one batch as a worker gets it (the
order matters: a later case reads what an earlier one tried to leave behind).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from linteval_ray.config import PoolConfig, TestLimits, ValidationConfig
from linteval_ray.schema import LintEvalRecord, ResultRow, Status, Verdict
from linteval_ray.validate.engine import Validator
from linteval_ray.validate.sandbox import RunLimits
from tests.host_memory import shmem_rise
from tests.pipeline.samples import bundled_jsonl

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]

LIMITS = TestLimits(time_floor_s=3.0, time_factor=3.0, memory_mb=256, output_mb=1, reference_time_limit_s=10.0)

# The original's solution, run after the attack in the same program (so only the attack decides).
SOLVE_PY = """
def solve():
    import sys
    data = sys.stdin.buffer.read().split()
    n, q = int(data[0]), int(data[1])
    prefix = [0] * (n + 1)
    for i in range(n):
        prefix[i + 1] = prefix[i] + int(data[2 + i])
    idx, out = 2 + n, []
    for _ in range(q):
        left, right = int(data[idx]), int(data[idx + 1])
        idx += 2
        out.append(str(prefix[right] - prefix[left - 1]))
    print("\\n".join(out))
"""

KEYRING = """
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
SYS_add_key, SYS_request_key, SYS_keyctl = 248, 249, 250   # x86_64
KEY_SPEC_USER_KEYRING, KEYCTL_READ = -4, 11
"""

TMP_FLOOD_PY = """
import os, time
def flood(hold_s=0.0):
    chunk = b"x" * (8 << 20)
    try:
        for i in range(128):  # 1 GiB
            with open("/tmp/flood-%d" % i, "wb") as f:
                f.write(chunk)
    finally:
        time.sleep(hold_s)  # keep the pages while the test looks at the host
"""

# name -> (language, code, verdicts it may get)
CASES: dict[str, tuple[str, str, frozenset[Verdict]]] = {
    # Leaves a key in its uid's user keyring (it outlives the box unless add_key is refused).
    "keyring_store": ("py3", KEYRING + SOLVE_PY + """
payload = b"LEFT-BY-AN-EARLIER-RUN"
if libc.syscall(SYS_add_key, b"user", b"linteval-note", payload, len(payload), KEY_SPEC_USER_KEYRING) < 0:
    sys.exit("add_key refused: errno %d" % ctypes.get_errno())
solve()
""", frozenset({Verdict.RUNTIME_ERROR})),
    # A later run (another row) looks for it: found -> wrong output, refused -> its own runtime error.
    "keyring_read": ("py3", KEYRING + """
key = libc.syscall(SYS_request_key, b"user", b"linteval-note", None, 0)
if key < 0:
    sys.exit("request_key refused: errno %d" % ctypes.get_errno())
buf = ctypes.create_string_buffer(256)
size = libc.syscall(SYS_keyctl, KEYCTL_READ, key, buf, 256)
print("KEYRING:", buf.raw[:size])
""", frozenset({Verdict.RUNTIME_ERROR})),
    # Compiler text that once passed for a full disk: the program's own compile error.
    "forged_disk_full": ("cpp", "#error No space left on device\nint main() {}\n",
                         frozenset({Verdict.COMPILE_ERROR})),
    # Fills the box's /tmp with files (each under RLIMIT_FSIZE): ENOSPC at the tmpfs's size.
    "tmp_flood": ("py3", TMP_FLOOD_PY + SOLVE_PY + "flood()\nsolve()\n", frozenset({Verdict.RUNTIME_ERROR})),
    # The host paths a box can learn (its stdin's, its mounts' sources) on stdout, and terminal escapes
    # as the last words on stderr: a row keeps stderr's tail, so how long this host's paths are cannot
    # push the escapes out of it (stdout's excerpt holds a few paths of any plausible length).
    "escapes_and_paths": ("py3", """
import os, sys
roots = [line.split()[3] for line in open("/proc/self/mountinfo") if line.split()[4] in ("/box", "/prog")]
print("stdin=" + os.readlink("/proc/self/fd/0"))
print("\\n".join("mount=" + root for root in roots))
sys.stdout.flush()
sys.stderr.write("\\x1b[2J\\x1b]52;c;cHduZWQ=\\x07 NUL:\\x00 CR:\\r BIDI:\\u202e")
sys.exit(3)
""", frozenset({Verdict.RUNTIME_ERROR})),
    "ptrace_pid1": ("py3", KEYRING + SOLVE_PY + """
PTRACE_ATTACH = 16
if libc.syscall(101, PTRACE_ATTACH, 1, None, None) < 0:
    sys.exit("ptrace refused: errno %d" % ctypes.get_errno())
solve()
""", frozenset({Verdict.RUNTIME_ERROR})),
    "io_uring": ("py3", KEYRING + SOLVE_PY + """
params = ctypes.create_string_buffer(120)
if libc.syscall(425, 4, params) < 0:
    sys.exit("io_uring_setup refused: errno %d" % ctypes.get_errno())
solve()
""", frozenset({Verdict.RUNTIME_ERROR})),
}




@pytest.fixture(scope="module")
def validator(session_cache_dir: str) -> Iterator[Validator]:
    validator = Validator(ValidationConfig(limits=LIMITS, pool=PoolConfig(num_cpus=2)))
    yield validator
    validator.close()


@pytest.fixture(scope="module")
def judged(validator: Validator, records: dict[str, LintEvalRecord]) -> dict[str, ResultRow]:
    """case name -> its row, and "good" -> the original's row judged after all of them."""
    rows = [{"record_json": records[language].model_dump_json(), "draw": draw, "revised_code": code,
             "model": "hostile"} for draw, (language, code, _) in enumerate(CASES.values())]
    good = records["py3"]
    rows.append({"record_json": good.model_dump_json(), "draw": len(rows), "revised_code": good.code})
    *hostile, after = validator.evaluate_batch(rows)
    return {**dict(zip(CASES, hostile, strict=True)), "good": after}


@pytest.mark.parametrize("name", list(CASES))
def test_attack_is_the_programs_own_failure(name: str, judged: dict[str, ResultRow]) -> None:
    row, good = judged[name], judged["good"]
    assert row.status == Status.EVALUATED, row.error
    assert row.verdict in CASES[name][2], row.validation_error
    assert (good.status, good.verdict) == (Status.EVALUATED, Verdict.PASSED), good.validation_error or good.error


def test_nothing_survives_in_the_keyring(judged: dict[str, ResultRow]) -> None:
    assert "refused" in (judged["keyring_store"].validation_error or "")
    assert "KEYRING" not in (judged["keyring_read"].validation_error or "")


DEEP_TREE_PY = """
import os
for _ in range(5000):
    os.mkdir("d")
    os.chdir("d")
open("leaf", "w").write("x")
""" + SOLVE_PY + "solve()\n"


def test_a_deep_tree_loses_no_row_and_leaves_no_scratch(tmp_path: Path, session_cache_dir: str) -> None:
    """``linteval-ray validate`` on a revision that builds a 5,000-deep tree in its work dir
    (each test run does), and a good revision after it: both rows come back, judged, and
    the validator's scratch dir is gone when the command ends."""
    good = next(LintEvalRecord.model_validate_json(line) for line in bundled_jsonl().read_text().splitlines()
                if '"lr02_py3_0"' in line)
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text(json.dumps({"sample_id": "lr01_py3_0", "revised_code": DEEP_TREE_PY}) + "\n"
                           + json.dumps({"sample_id": good.sample_id, "revised_code": good.code}) + "\n")
    scratch_parent = tmp_path / "tmp"
    scratch_parent.mkdir()
    out = subprocess.run(
        [sys.executable, "-m", "linteval_ray", "validate", "--predictions", str(predictions), "--json",
         "--sample-id", "lr01_py3_0", "--sample-id", good.sample_id],
        capture_output=True, text=True, timeout=900, env={**os.environ, "TMPDIR": str(scratch_parent)},
    )
    assert out.returncode == 0, out.stderr[-3000:]
    rows = {row["sample_id"]: row for row in (json.loads(line) for line in out.stdout.splitlines()
                                               if line.startswith("{"))}
    assert set(rows) == {"lr01_py3_0", good.sample_id}
    deep, after = rows["lr01_py3_0"], rows[good.sample_id]
    # 5,000 mkdirs per test may exceed the 2 s floor on a busy host: the program's own verdict either way.
    assert (deep["status"], deep["verdict"]) in {("evaluated", "passed"), ("evaluated", "time_limit")}, deep["error"]
    assert (after["status"], after["verdict"]) == ("evaluated", "passed"), after["validation_error"] or after["error"]
    assert [p.name for p in scratch_parent.iterdir() if p.name.startswith("linteval-work-")] == []


def test_tmp_writes_stop_at_the_bound_not_at_host_memory(validator: Validator) -> None:
    """A program writing 1 GiB of files into /tmp gets ENOSPC at the box's tmpfs size (64 MB
    by default) and holds them for a while: the host's Shmem never grows much past that."""
    limits = RunLimits(wall_s=30)
    with shmem_rise() as rise:
        result = validator.judge.run(["/usr/bin/python3", "-c", TMP_FLOOD_PY + "flood(hold_s=2.0)"], limits=limits)
    assert result.exit_code == 1 and b"No space left on device" in result.stderr, result.stderr[-500:]
    # Other work on the host moves Shmem too: allow 48 MB of noise above the bound.
    assert rise.mb < limits.tmp_mb + 48, rise


def test_program_text_in_rows_is_escaped_and_names_no_host_path(judged: dict[str, ResultRow], validator: Validator,
                                                                  session_cache_dir: str) -> None:
    row = judged["escapes_and_paths"]
    text = row.validation_error or ""
    assert row.first_failure is not None and row.first_failure.output_excerpt is not None
    output = row.first_failure.output_excerpt
    assert text.startswith("runtime_error: test ")
    for raw in ("\x1b", "\x00", "\x07", "\r", "\u202e"):
        assert raw not in text, f"{raw!r} reached the row"
    assert "\\x1b]52;c;cHduZWQ=\\x07" in text and "\\u202e" in text  # visible, not lost
    for host_path in (str(validator._scratch), session_cache_dir, os.path.realpath(session_cache_dir), sys.prefix):
        assert host_path not in text and host_path not in output, f"{host_path} reached the row"
    assert "stdin=<cache>/" in output and "mount=<scratch>/" in output, output
