"""A tiny seccomp filter for bwrap's ``--seccomp``: no new user namespaces.

Running as root, the box cannot use bwrap's ``--disable-userns`` (that needs a
user namespace of its own), so a program could ``unshare -r`` and reach kernel
code that is otherwise root-only: the main source of namespace escapes. The
filter refuses ``unshare``/``clone`` with CLONE_NEWUSER, answers ``clone3`` with
ENOSYS (its flags live in memory BPF cannot read; libc then falls back to
``clone``), and refuses every syscall of a foreign ABI (i386, x32).
"""

from __future__ import annotations

import errno
import os
import platform
import struct

_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_RET_K = 0x06
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_CLONE_NEWUSER = 0x10000000
_X32_SYSCALL_BIT = 0x40000000

# machine -> (AUDIT_ARCH, unshare, clone, clone3)
_ARCHES = {
    "x86_64": (0xC000003E, 272, 56, 435),
    "aarch64": (0xC00000B7, 97, 220, 435),
}


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def no_userns_filter(machine: str | None = None) -> bytes | None:
    """The compiled BPF program, or None on an architecture we have no numbers for."""
    numbers = _ARCHES.get(machine or platform.machine())
    if numbers is None:
        return None
    arch, unshare, clone, clone3 = numbers
    deny, nosys = _RET_ERRNO | errno.EPERM, _RET_ERRNO | errno.ENOSYS
    program = [
        _insn(_LD_W_ABS, 0, 0, 4),  # 0: seccomp_data.arch
        _insn(_JEQ_K, 0, 9, arch),  # 1: foreign ABI -> 11 deny
        _insn(_LD_W_ABS, 0, 0, 0),  # 2: seccomp_data.nr
        _insn(_JGE_K, 7, 0, _X32_SYSCALL_BIT),  # 3: x32 -> 11 deny
        _insn(_JEQ_K, 7, 0, clone3),  # 4: -> 12 ENOSYS
        _insn(_JEQ_K, 2, 0, unshare),  # 5: -> 8 check flags
        _insn(_JEQ_K, 1, 0, clone),  # 6: -> 8 check flags
        _insn(_RET_K, 0, 0, _RET_ALLOW),  # 7
        _insn(_LD_W_ABS, 0, 0, 16),  # 8: low word of args[0] (flags)
        _insn(_JSET_K, 1, 0, _CLONE_NEWUSER),  # 9: -> 11 deny
        _insn(_RET_K, 0, 0, _RET_ALLOW),  # 10
        _insn(_RET_K, 0, 0, deny),  # 11
        _insn(_RET_K, 0, 0, nosys),  # 12
    ]
    return b"".join(program)


def filter_fd(program: bytes) -> int:
    """A fresh readable fd holding ``program`` (bwrap reads it to the end, once)."""
    fd = os.memfd_create("seccomp", os.MFD_CLOEXEC)
    os.write(fd, program)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
