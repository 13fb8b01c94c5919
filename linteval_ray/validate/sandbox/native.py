"""The sandbox's C helpers (``box_init.c``, ``box_server.c``, the checker batches' driver), compiled once
per source version.

Each is built on first use into the node-local cache (``$LINTEVAL_CACHE_DIR/bin``) under a
content-hashed name, with the C compiler every C++ judge needs anyway.
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

COMPILE_TIMEOUT_S = 120
BUILD = b"-O2 -static, else -O2\n"  # part of a binary's name: a change of how they are built rebuilds them


@functools.cache
def compiled(source: Path) -> str:
    """The binary built from ``source`` (atomically: nodes' actors race for it)."""
    code = source.read_bytes()
    target = default_cache_dir() / "bin" / f"{source.stem}-{hashlib.sha256(BUILD + code).hexdigest()[:16]}"
    if os.access(target, os.X_OK):
        return str(target)
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        raise SandboxError(f"a C compiler (cc/gcc) is needed to build the sandbox's {source.stem}: "
                           "apt-get install gcc (it comes with g++)")
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, partial = tempfile.mkstemp(dir=target.parent, prefix=f".{source.stem}-")
    os.close(fd)
    try:
        # Static where the C library's archive is there: an exec of it maps no shared library (the box's
        # init is exec'd once per run).
        for flags in (["-static"], []):
            done = subprocess.run([compiler, "-O2", *flags, "-o", partial, str(source)], capture_output=True,
                                  text=True, timeout=COMPILE_TIMEOUT_S, check=False)
            if done.returncode == 0:
                break
        if done.returncode != 0:
            raise SandboxError(f"cannot build the sandbox's {source.stem} with {compiler}: {done.stderr.strip()}")
        os.chmod(partial, 0o755)
        os.replace(partial, target)
    finally:
        if os.path.exists(partial):
            os.unlink(partial)
    return str(target)
