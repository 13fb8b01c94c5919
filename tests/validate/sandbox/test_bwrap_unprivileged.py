"""BwrapSandbox run by an unprivileged user (Ray's images run as uid 1000): bwrap uses a user
namespace, and the box's init must still size /tmp and drop every privilege."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from linteval_ray.validate.sandbox import BwrapSandbox, SandboxError
from linteval_ray.validate.sandbox.layout import Op
from tests.host_memory import shmem_rise

NOBODY = 65534
TMP_MB = 32
REPO = Path(__file__).resolve().parents[3]

# Run as the unprivileged user: one box reports who it is, one floods /tmp with 512 MB and holds it.
CHILD = f"""
import json, os, sys
from pathlib import Path
from linteval_ray.validate.sandbox import BwrapSandbox, RunLimits
work = Path(sys.argv[1])
sb = BwrapSandbox()
who = sb.run(["/bin/sh", "-c", "id -u; grep -E '^(CapEff|CapPrm|CapBnd|NoNewPrivs)' /proc/self/status; "
              "unshare -r id || echo no-userns; mount -o remount,size=1g /tmp || echo no-remount; "
              "df -k /tmp | tail -1"], workdir=work, limits=RunLimits(wall_s=30))
flood = ("import os, time\\n"
         "chunk = b'x' * (8 << 20)\\n"
         "try:\\n"
         "    for i in range(64):\\n"
         "        with open('/tmp/flood-%d' % i, 'wb') as f: f.write(chunk)\\n"
         "finally:\\n"
         "    time.sleep(2.0)\\n")
full = sb.run(["/usr/bin/python3", "-c", flood], workdir=work, limits=RunLimits(wall_s=30, tmp_mb={TMP_MB}))
sb.close()
print(json.dumps({{"uid": os.geteuid(), "who": who.stdout.decode(), "who_err": who.stderr.decode(),
                  "exit_code": full.exit_code, "stderr": full.stderr.decode(errors="replace")[-2000:]}}))
"""


def _as_unprivileged() -> list[str]:
    """The command prefix that runs as an unprivileged uid (ourselves when not root)."""
    if os.geteuid() != 0:
        return []
    return ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]


@pytest.fixture
def unprivileged_home() -> Iterator[Path]:
    """A home the unprivileged uid owns (pytest's tmp_path is 0700 root)."""
    home = Path(tempfile.mkdtemp(prefix="linteval-unpriv-"))
    for path in (home, home / "cache", home / "box"):
        path.mkdir(exist_ok=True)
        if os.geteuid() == 0:
            os.chown(path, NOBODY, NOBODY)
    yield home
    subprocess.run(["rm", "-rf", "--one-file-system", str(home)], check=False)


def _user_namespaces_work(prefix: list[str]) -> str | None:
    done = subprocess.run([*prefix, "unshare", "--user", "--map-root-user", "true"], capture_output=True, text=True,
                          check=False)
    return None if done.returncode == 0 else done.stderr.strip() or f"exit {done.returncode}"


def _closed_to_others(path: Path) -> Path | None:
    """The first folder above ``path`` that another uid cannot pass through, if any."""
    for folder in (path, *path.parents):
        if not folder.stat().st_mode & 0o001:
            return folder
    return None


def test_unprivileged_box_has_a_sized_tmp_and_no_privileges(unprivileged_home: Path) -> None:
    prefix = _as_unprivileged()
    if (why := _user_namespaces_work(prefix)) is not None:
        pytest.skip(f"this host cannot make unprivileged user namespaces: {why}")
    # As root the child runs as nobody, which must reach the checkout and its interpreter.
    closed = _closed_to_others(REPO) or _closed_to_others(Path(sys.prefix)) if prefix else None
    if closed is not None:
        pytest.skip(f"uid {NOBODY} cannot reach the checkout or its venv: {closed} is closed to other users "
                    "(clone into a folder others can pass through, e.g. chmod o+x)")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(unprivileged_home), "PYTHONPATH": str(REPO),
           "LINTEVAL_CACHE_DIR": str(unprivileged_home / "cache")}
    with shmem_rise() as rise:
        child = subprocess.run([*prefix, sys.executable, "-c", CHILD, str(unprivileged_home / "box")], env=env,
                               cwd=unprivileged_home, capture_output=True, text=True, timeout=300, check=False)
    assert child.returncode == 0, child.stderr[-3000:]
    report = json.loads(child.stdout.splitlines()[-1])
    assert report["uid"] != 0
    who = report["who"].splitlines()
    assert who[0] == str(report["uid"])  # the caller's own uid, mapped into the box
    for cap in ("CapEff", "CapPrm", "CapBnd"):
        assert f"{cap}:\t0000000000000000" in who, who
    assert "NoNewPrivs:\t1" in who
    assert "no-userns" in who and "no-remount" in who, (who, report["who_err"])
    assert int(who[-1].split()[1]) == 64 << 10  # the default tmp_mb, in KiB
    # Past the cap the program's own write fails (ENOSPC: its runtime error), host RAM does not fill.
    assert report["exit_code"] == 1 and "No space left on device" in report["stderr"], report["stderr"]
    assert rise.mb < TMP_MB + 48, rise  # 48 MB of noise from other work on the host


class _NoMountCapability(BwrapSandbox):
    """A host where the box's init may not mount (as if the kernel refused it)."""

    def _bwrap_argv(self, run: list[Op], *, info_fd: int) -> list[str]:
        args = super()._bwrap_argv(run, info_fd=info_fd)
        at = args.index("CAP_SYS_ADMIN")
        return [*args[: at - 1], *args[at + 1:]]


def test_a_box_whose_tmp_cannot_be_sized_never_runs() -> None:
    with pytest.raises(SandboxError, match="resize the tmpfs at /tmp"):
        _NoMountCapability(builder="bwrap")
