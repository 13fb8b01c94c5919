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
    ``toolchain``: its bwrap is used, and the tools living outside /usr (the
    clang-tidy wheel, PMD, testlib) are bound read-only at their own paths.
    Raises ``SandboxUnavailable`` (a user's fix, in one line) when the backend cannot work here.
    """
    binds = [Path(p) for p in extra_ro_binds]
    if toolchain is not None:
        binds += _toolchain_binds(toolchain)
    setup = SandboxSetup(allow_unsafe=allow_unsafe, ro_binds=_dedupe(binds), toolchain=toolchain)
    try:
        return sandbox_class(kind).open(setup)
    except SandboxUnavailable:
        raise
    except SandboxError as exc:  # a sandbox that cannot be opened cannot work here
        raise SandboxUnavailable(f"the {kind} sandbox cannot work here: {exc}") from exc


def _toolchain_binds(toolchain: Toolchain) -> list[Path]:
    """Folders of toolchain parts that are not under /usr."""
    binds = []
    clang_tidy = Path(toolchain.clang_tidy).resolve()
    # The wheel's binary finds its builtin headers in ../lib/clang: bind the whole prefix.
    binds.append(clang_tidy.parent.parent if clang_tidy.parent.name == "bin" else clang_tidy.parent)
    binds += [Path(toolchain.pmd_home).resolve(), Path(toolchain.testlib_dir).resolve()]
    return [p for p in binds if not p.is_relative_to("/usr")]


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
