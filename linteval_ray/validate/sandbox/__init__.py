"""Sandboxes for untrusted programs: ``make_sandbox`` picks and checks a backend.

``bwrap`` (default) isolates filesystem, network, processes and uid;
``rlimits`` only limits resources and must be explicitly allowed (UNSAFE).
See docs/security.md.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from linteval_ray.validate.sandbox.base import (
    BOX_DIR,
    Mount,
    RunLimits,
    RunResult,
    Sandbox,
    SandboxError,
    SandboxSetup,
    SandboxUnavailable,
    sandbox_class,
)
from linteval_ray.validate.sandbox.bwrap import BwrapSandbox
from linteval_ray.validate.sandbox.rlimits import RlimitSandbox

if TYPE_CHECKING:
    from linteval_ray.toolchain import Toolchain

def make_sandbox(
    kind: str = "bwrap",
    *,
    allow_unsafe: bool = False,
    extra_ro_binds: Iterable[str | Path] = (),
    toolchain: Toolchain | None = None,
) -> Sandbox:
    """A ready sandbox of ``kind`` ("bwrap" or "rlimits").

    ``extra_ro_binds``: host paths visible read-only at the same path in every run.
    ``toolchain``: its bwrap is used, and the folders its tools need outside /usr (their
    rows' ``box_folder``: the clang-tidy wheel, PMD, testlib) are bound read-only at their own paths.
    Raises ``SandboxUnavailable`` (a user's fix, in one line) when the backend cannot work here.
    """
    binds = [Path(p) for p in extra_ro_binds]
    if toolchain is not None:
        binds += toolchain.box_folders()
    setup = SandboxSetup(allow_unsafe=allow_unsafe, ro_binds=_dedupe(binds), toolchain=toolchain)
    try:
        return sandbox_class(kind).open(setup)
    except SandboxUnavailable:
        raise
    except SandboxError as exc:  # a sandbox that cannot be opened cannot work here
        raise SandboxUnavailable(f"the {kind} sandbox cannot work here: {exc}") from exc


def _dedupe(paths: list[Path]) -> list[Path]:
    """Drop duplicates and paths already inside another bound path."""
    unique = sorted({p.resolve() for p in paths}, key=lambda p: len(p.parts))
    kept: list[Path] = []
    for path in unique:
        if not any(path.is_relative_to(k) for k in kept):
            kept.append(path)
    return kept


__all__ = [
    "BOX_DIR",
    "BwrapSandbox",
    "Mount",
    "RlimitSandbox",
    "RunLimits",
    "RunResult",
    "Sandbox",
    "SandboxError",
    "SandboxUnavailable",
    "make_sandbox",
]
