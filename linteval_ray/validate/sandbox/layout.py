"""What a box holds, as one list of operations that both box builders follow.

The box server (``box_server.c``) and bubblewrap build every box from the same ``Op`` list: the
sandbox's shared layout (``skeleton``) plus the run's own (``run_ops``). So a run sees the same
world whichever builder made its box, and the list is written once, here.

The layout: an empty root tmpfs; read-only binds of ``/usr`` (and the merged-usr links), a few
``/etc`` files the dynamic linker and the JVM read, the toolchain's folders outside ``/usr``, and
the box's init at ``/.box-init``; a fresh ``/proc`` (host-wide keyring tables masked) and ``/dev``
(the harmless device nodes, a devpts of its own, ``/dev/shm``); ``/tmp``, a tmpfs the init sizes;
``/box``, the run's work dir or a tmpfs of its own (the init mounts it); the caller's mounts.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from linteval_ray.validate.sandbox.base import BOX_DIR, Mount, SandboxError
from linteval_ray.validate.sandbox.box_init import INIT_PATH

OpKind = Literal["tmpfs", "dir", "bind", "bind-rw", "bind-try", "symlink", "proc", "dev", "mask"]

# Merged-usr top-level entries: symlinks on Debian 12, directories elsewhere.
_USR_LINKS = ("/bin", "/lib", "/lib64", "/sbin", "/lib32", "/libx32")
# /etc entries programs need: the linker cache, `java`/`javac` alternatives,
# and the JVM's config (its lib/jvm.cfg and conf/ are symlinks into /etc).
_ETC_ENTRIES = ("/etc/ld.so.cache", "/etc/alternatives", "/etc/java-17-openjdk")
# Host-wide keyring tables (which uids hold keys); the keyring syscalls are refused anyway.
_PROC_HIDDEN = ("/proc/key-users", "/proc/keys")
# Box paths a caller's mount may not replace.
_RESERVED = ("/", "/usr", "/proc", "/dev", "/tmp", "/etc", BOX_DIR, INIT_PATH)


class Op(BaseModel, frozen=True):
    """One step of building a box (see ``box_server.c`` for each kind)."""

    kind: OpKind
    a: str  # the source (binds), the target (symlink), else the box path
    b: str = ""  # the box path (binds, symlink), the mode (tmpfs, dir)

    def fields(self) -> list[str]:
        return [self.kind, self.a, self.b]


def skeleton(init_binary: str, ro_binds: Iterable[Path]) -> list[Op]:
    """The layout every box of a sandbox shares."""
    ops = [Op(kind="bind", a="/usr", b="/usr")]
    for top in _USR_LINKS:
        if os.path.islink(top):
            ops.append(Op(kind="symlink", a=os.readlink(top), b=top))
        elif os.path.isdir(top):
            ops.append(Op(kind="bind", a=top, b=top))
    ops.append(Op(kind="dir", a="/etc", b="0755"))
    ops += [Op(kind="bind", a=entry, b=entry) for entry in _ETC_ENTRIES if os.path.exists(entry)]
    # /tmp before the binds: a bind below /tmp must not be hidden by it (the init only sizes it).
    ops += [Op(kind="proc", a="/proc"), Op(kind="dev", a="/dev"), Op(kind="tmpfs", a="/tmp", b="1777")]
    ops += [Op(kind="mask", a=table) for table in _PROC_HIDDEN]
    for path in ro_binds:
        ops += [*parent_dirs(str(path)), Op(kind="bind", a=str(path), b=str(path))]
    return [*ops, Op(kind="bind", a=init_binary, b=INIT_PATH)]


def run_ops(workdir: Path | None, mounts: Iterable[Mount]) -> list[Op]:
    """A run's own part of its box: ``/box`` (its work dir, else an empty dir the init mounts a
    tmpfs on) and the caller's mounts."""
    ops = [Op(kind="bind-rw", a=str(workdir), b=BOX_DIR) if workdir else Op(kind="dir", a=BOX_DIR, b="0755")]
    for mount in mounts:
        dst = os.path.normpath(mount.dst)
        if not os.path.isabs(dst) or dst in _RESERVED:
            raise SandboxError(f"mount destination {mount.dst!r} is not allowed")
        ops += [*parent_dirs(dst), Op(kind="bind-rw" if mount.writable else "bind", a=str(Path(mount.src).resolve()),
                                      b=dst)]
    return ops


def parent_dirs(dst: str) -> list[Op]:
    """A mount point's parents, world-searchable (bubblewrap's own would be 0700, which the sandbox
    uid cannot traverse); existing directories are left as they are."""
    return [Op(kind="dir", a=str(parent), b="0755") for parent in reversed(Path(dst).parents[:-1])]


def bwrap_args(ops: Iterable[Op]) -> list[str]:
    """The same operations as bubblewrap options (after its ``--tmpfs /``)."""
    args: list[str] = []
    for op in ops:
        if op.kind in ("tmpfs", "dir"):
            args += ["--perms", op.b, f"--{op.kind}", op.a]
        elif op.kind in ("bind", "bind-rw", "bind-try"):
            args += [{"bind": "--ro-bind", "bind-rw": "--bind", "bind-try": "--ro-bind-try"}[op.kind], op.a, op.b]
        elif op.kind == "symlink":
            args += ["--symlink", op.a, op.b]
        elif op.kind == "mask":
            args += ["--ro-bind-try", "/dev/null", op.a]
        else:  # proc, dev
            args += [f"--{op.kind}", op.a]
    return args
