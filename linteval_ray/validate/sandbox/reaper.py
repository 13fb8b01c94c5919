"""The reaper: a tiny C program in front of every run that reports the run's true peak memory.

A process spawned by a big parent (a Ray actor holding pyarrow, a warm pylint...) inherits the
parent's peak resident size at exec, so ``wait4`` on it cannot tell a 20 MB program from the
parent. ``reaper.c`` forks the run from its own small process and writes the child tree's
``ru_maxrss`` to a pipe. It is compiled once per source version into the
node-local cache (``$LINTEVAL_CACHE_DIR/bin``), with the C compiler every C++ judge needs anyway.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from linteval_ray.validate.cache import default_cache_dir
from linteval_ray.validate.sandbox.base import SandboxError

SOURCE = Path(__file__).with_name("reaper.c")
COMPILE_TIMEOUT_S = 120


@functools.cache
def reaper_binary() -> str:
    """The compiled reaper for this source, built on first use (atomically: nodes' actors race)."""
    source = SOURCE.read_bytes()
    target = default_cache_dir() / "bin" / f"reaper-{hashlib.sha256(source).hexdigest()[:16]}"
    if os.access(target, os.X_OK):
        return str(target)
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        raise SandboxError("a C compiler (cc/gcc) is needed to build the sandbox's reaper: "
                           "apt-get install gcc (it comes with g++)")
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, partial = tempfile.mkstemp(dir=target.parent, prefix=".reaper-")
    os.close(fd)
    try:
        done = subprocess.run([compiler, "-O2", "-o", partial, str(SOURCE)], capture_output=True, text=True,
                              timeout=COMPILE_TIMEOUT_S, check=False)
        if done.returncode != 0:
            raise SandboxError(f"cannot build the sandbox's reaper with {compiler}: {done.stderr.strip()}")
        os.chmod(partial, 0o755)
        os.replace(partial, target)
    finally:
        if os.path.exists(partial):
            os.unlink(partial)
    return str(target)


def parse_report(report: bytes) -> float | None:
    """Peak resident MB from the reaper's line, None when it wrote none (it was killed)."""
    try:
        return int(report) / 1024
    except ValueError:
        return None
