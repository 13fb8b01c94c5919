"""RlimitSandbox: UNSAFE fallback for hosts without bubblewrap.

Only rlimits, a new session (whole-group kill) and a scrubbed environment. The
program runs as the calling user with full view of the host filesystem and
network: a hostile program can read credentials, write anywhere the caller can,
and (as root) signal every process on the machine. Use only for trusted input.
"""

from __future__ import annotations

import logging
import os
import tempfile
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
from linteval_ray.validate.sandbox.box_init import InitOptions
from linteval_ray.validate.sandbox.process import ChildProcess, Pipes, build_env, supervise
from linteval_ray.validate.scratch import work_dir

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
        log.warning(UNSAFE_WARNING, os.geteuid())

    @classmethod
    def open(cls, setup: SandboxSetup) -> RlimitSandbox:
        """Only with the user's consent (``setup.allow_unsafe``); binds nothing (every host path is visible)."""
        return cls(allow_unsafe=setup.allow_unsafe)

    def run(
        self,
        argv: list[str],
        *,
        workdir: Path | None,
        limits: RunLimits,
        stdin: bytes | Path | None = None,
        mounts: list[Mount] | None = None,
        env: dict[str, str] | None = None,
    ) -> RunResult:
        for mount in mounts or []:
            # No mount namespace: a mount only works if it is at its host path already.
            if os.path.normpath(mount.dst) != str(Path(mount.src).resolve()):
                raise SandboxError(
                    f"the 'rlimits' sandbox cannot mount {mount.src} at {mount.dst}; mount at the same path")
        if workdir is None:
            with work_dir(Path(tempfile.gettempdir()), "linteval-run-") as scratch:
                return self._run_in(argv, scratch, limits, stdin, env)
        workdir = Path(workdir).resolve()
        if not workdir.is_dir():
            raise SandboxError(f"workdir {workdir} is not a directory")
        return self._run_in(argv, workdir, limits, stdin, env)

    def _run_in(self, argv: list[str], workdir: Path, limits: RunLimits, stdin: bytes | Path | None,
                env: dict[str, str] | None) -> RunResult:
        """The init alone in front of the program (no box): rlimits, a session it kills at the end,
        the report of how the run ended."""
        pipes = Pipes(stdin, owner=None)
        report_r, report_w = os.pipe()
        try:
            options = InitOptions(report_fd=report_w, limits=limits, pid1=False, sized_tmp=False)
            started = ChildProcess(options.argv(argv), env={**build_env(env), "HOME": str(workdir)}, cwd=workdir,
                                   stdio=pipes.child_ends, pass_fds=(report_w,))
            os.close(report_w)
            report_w = -1
            pipes.close_child_ends()
            supervised = supervise(started, pipes, report_r, limits)
        finally:
            for fd in (report_r, report_w):
                if fd >= 0:
                    os.close(fd)
            pipes.close()
        if not supervised.report.started:
            raise SandboxError(f"the run did not start: {supervised.report.failure or 'its init said nothing'}")
        return supervised.result
