"""RlimitSandbox: UNSAFE fallback for hosts without bubblewrap.

Only rlimits, a new session (whole-group kill) and a scrubbed environment. The
program runs as the calling user with full view of the host filesystem and
network: a hostile program can read credentials, write anywhere the caller can,
and (as root) signal every process on the machine. Use only for trusted input.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from linteval_ray.validate.sandbox.base import (
    Mount,
    RunLimits,
    RunResult,
    Sandbox,
    SandboxError,
    SandboxSetup,
    register_sandbox,
)
from linteval_ray.validate.sandbox.process import PRLIMIT, build_env, prlimit_argv, run_limited

log = logging.getLogger(__name__)

UNSAFE_WARNING = (
    "UNSAFE SANDBOX: 'rlimits' gives NO filesystem, network or user isolation; untrusted programs "
    "run as uid %d with access to everything this process can reach. Use 'bwrap' for untrusted code."
)


@register_sandbox
class RlimitSandbox(Sandbox):
    """Resource limits only; refuses to exist unless ``allow_unsafe`` is set."""

    name = "rlimits"

    def __init__(self, *, allow_unsafe: bool = False) -> None:
        if not allow_unsafe:
            raise SandboxError(
                "the 'rlimits' sandbox does not isolate untrusted programs; set "
                "validation.allow_unsafe_sandbox: true (allow_unsafe=True) to use it anyway"
            )
        if not os.access(PRLIMIT, os.X_OK):
            raise SandboxError(f"{PRLIMIT} (util-linux) is needed to set rlimits: apt-get install util-linux")
        log.warning(UNSAFE_WARNING, os.geteuid())

    @classmethod
    def open(cls, setup: SandboxSetup) -> RlimitSandbox:
        """Only with the user's consent (``setup.allow_unsafe``); binds nothing (every host path is visible)."""
        return cls(allow_unsafe=setup.allow_unsafe)

    def run(
        self,
        argv: list[str],
        *,
        workdir: Path,
        limits: RunLimits,
        stdin: bytes | Path | None = None,
        mounts: list[Mount] | None = None,
        env: dict[str, str] | None = None,
        as_pid1: bool = False,
        fds: tuple[int, ...] = (),
    ) -> RunResult:
        if as_pid1:
            raise SandboxError("the 'rlimits' sandbox has no pid namespace: a run cannot be its pid 1")
        workdir = Path(workdir).resolve()
        if not workdir.is_dir():
            raise SandboxError(f"workdir {workdir} is not a directory")
        for mount in mounts or []:
            # No mount namespace: a mount only works if it is at its host path already.
            if os.path.normpath(mount.dst) != str(Path(mount.src).resolve()):
                raise SandboxError(
                    f"the 'rlimits' sandbox cannot mount {mount.src} at {mount.dst}; mount at the same path")
        run_env = {**build_env(env), "HOME": str(workdir)}
        return run_limited(
            [*prlimit_argv(limits), *argv],
            cwd=workdir,
            limits=limits,
            env=run_env,
            stdin=stdin,
            exit_code_signals=False,
            pass_fds=fds,
        )

