"""The seccomp filter the box's init installs (``box_init.c``): no user namespaces, no kernel state that
outlives a run, less kernel attack surface.

Running as root, the box cannot use bwrap's ``--disable-userns`` (that needs a
user namespace of its own), so a program could ``unshare -r`` and reach kernel
code that is otherwise root-only: the main source of namespace escapes. The
filter refuses ``unshare``/``clone`` with CLONE_NEWUSER, answers ``clone3`` with
ENOSYS (its flags live in memory BPF cannot read; libc then falls back to
``clone``), and refuses every syscall of a foreign ABI (i386, x32).

It also refuses (EPERM) syscalls no judged program, compiler or linter needs:
- the kernel keyring (``add_key``, ``request_key``, ``keyctl``): a uid's keyring
  outlives the box, so one run could leave data for a later run of the same uid;
- ``ptrace``, ``process_vm_readv/writev``, ``pidfd_getfd``, ``kcmp``: looking into
  or across other processes (the box's pid 1 is ours);
- ``io_uring_*``, ``bpf``, ``perf_event_open``, ``userfaultfd``, ``fanotify_init``,
  ``name_to_handle_at``/``open_by_handle_at``, ``syslog``, ``memfd_secret``: large kernel surfaces a
  probe found open (or open to root) here, a frequent source of exploits;
- ``mincore`` and ``cachestat`` (EPERM), ``preadv2``/``pwritev2`` (ENOSYS: libc then uses
  ``preadv``/``pwritev``, which have no ``RWF_NOWAIT``): each says, without timing anything, which
  pages of a file are in the host's page cache, which every box shares. A test could set such bits
  by reading pages of a read-only file and a later test read them back: state across boxes.
"""

from __future__ import annotations

import errno
import os
import platform
import struct
from dataclasses import dataclass

_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_RET_K = 0x06
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_CLONE_NEWUSER = 0x10000000
_X32_SYSCALL_BIT = 0x40000000

DENIED = (
    "add_key", "request_key", "keyctl",
    "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    "bpf", "perf_event_open", "userfaultfd", "fanotify_init", "name_to_handle_at", "open_by_handle_at", "syslog",
    "memfd_secret", "mincore", "cachestat",
)
UNSUPPORTED = ("clone3", "preadv2", "pwritev2")  # ENOSYS: libc falls back to the older call


@dataclass(frozen=True)
class _Arch:
    audit_arch: int
    numbers: dict[str, int]


# Syscall numbers from <asm/unistd.h> (x86_64: unistd_64.h; aarch64: asm-generic).
_ARCHES = {
    "x86_64": _Arch(0xC000003E, {
        "unshare": 272, "clone": 56, "clone3": 435,
        "add_key": 248, "request_key": 249, "keyctl": 250,
        "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "pidfd_getfd": 438, "kcmp": 312,
        "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "bpf": 321, "perf_event_open": 298, "userfaultfd": 323, "fanotify_init": 300,
        "name_to_handle_at": 303, "open_by_handle_at": 304, "syslog": 103, "memfd_secret": 447,
        "mincore": 27, "cachestat": 451, "preadv2": 327, "pwritev2": 328,
    }),
    "aarch64": _Arch(0xC00000B7, {
        "unshare": 97, "clone": 220, "clone3": 435,
        "add_key": 217, "request_key": 218, "keyctl": 219,
        "ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271, "pidfd_getfd": 438, "kcmp": 272,
        "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "bpf": 280, "perf_event_open": 241, "userfaultfd": 282, "fanotify_init": 262,
        "name_to_handle_at": 264, "open_by_handle_at": 265, "syslog": 116, "memfd_secret": 447,
        "mincore": 232, "cachestat": 451, "preadv2": 286, "pwritev2": 287,
    }),
}


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def box_filter(machine: str | None = None) -> bytes | None:
    """The compiled BPF program, or None on an architecture we have no numbers for."""
    arch = _ARCHES.get(machine or platform.machine())
    if arch is None:
        return None
    nr = arch.numbers
    # (code, true label or None, false label or None, k); labels resolve to relative jumps.
    body: list[tuple[int, str | None, str | None, int]] = [
        (_LD_W_ABS, None, None, 4),  # seccomp_data.arch
        (_JEQ_K, None, "deny", arch.audit_arch),  # foreign ABI
        (_LD_W_ABS, None, None, 0),  # seccomp_data.nr
        (_JGE_K, "deny", None, _X32_SYSCALL_BIT),  # x32
        *[(_JEQ_K, "nosys", None, nr[name]) for name in UNSUPPORTED],
        *[(_JEQ_K, "deny", None, nr[name]) for name in DENIED],
        (_JEQ_K, "flags", None, nr["unshare"]),
        (_JEQ_K, "flags", None, nr["clone"]),
        (_RET_K, None, None, _RET_ALLOW),
    ]
    labels = {"flags": len(body), "deny": len(body) + 3, "nosys": len(body) + 4}
    body += [
        (_LD_W_ABS, None, None, 16),  # flags: low word of args[0]
        (_JSET_K, "deny", None, _CLONE_NEWUSER),
        (_RET_K, None, None, _RET_ALLOW),
        (_RET_K, None, None, _RET_ERRNO | errno.EPERM),  # deny
        (_RET_K, None, None, _RET_ERRNO | errno.ENOSYS),  # nosys
    ]

    def jump(pc: int, label: str | None) -> int:
        return 0 if label is None else labels[label] - pc - 1

    return b"".join(_insn(code, jump(pc, jt), jump(pc, jf), k) for pc, (code, jt, jf, k) in enumerate(body))


def filter_fd(program: bytes) -> int:
    """A fresh readable fd holding ``program`` (the box's init reads it to the end, once)."""
    fd = os.memfd_create("seccomp", os.MFD_CLOEXEC)
    os.write(fd, program)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
