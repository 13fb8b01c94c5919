"""Claim a dedicated, unprivileged uid per sandbox, unique on this host.

RLIMIT_NPROC counts every process of a uid, and processes of one uid may signal
and trace each other: two sandboxes (e.g. two Ray actors) must never share one.
The claim is an exclusive ``flock`` on ``<lock_dir>/<uid>.lock``, held until
``release()``; the kernel drops it if the holder dies, so a crashed actor never
leaks its uid.
"""

from __future__ import annotations

import fcntl
import logging
import os
from pathlib import Path

from linteval_ray.validate.sandbox.base import SandboxError

log = logging.getLogger(__name__)

UID_RANGE = range(61000, 62000)
LOCK_DIR = Path("/tmp/linteval-ray-uids")
DEAD_STATES = frozenset("ZX")  # zombie, dead


class UidClaim:
    """One uid of ``UID_RANGE``, exclusively ours while the lock file stays locked."""

    def __init__(self, uid: int, lock_fd: int) -> None:
        self.uid = uid
        self._lock_fd: int | None = lock_fd

    def release(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # closing drops the flock
            self._lock_fd = None


def claim_uid(uids: range = UID_RANGE, lock_dir: Path = LOCK_DIR) -> UidClaim:
    """Lock the first free uid of ``uids`` that owns no running process."""
    _ensure_private_dir(lock_dir)
    busy = _uids_with_processes()
    for uid in uids:
        if uid in busy:
            continue  # a leftover of a run we did not start: never share its uid
        fd = os.open(lock_dir / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        log.debug("sandbox uid %d claimed", uid)
        return UidClaim(uid, fd)
    raise SandboxError(f"no free sandbox uid in {uids.start}-{uids.stop - 1} (lock dir {lock_dir})")


def processes_of_uid(uid: int) -> list[int]:
    """Pids of ``uid`` (from /proc) that can still run: zombies are dead, only not yet reaped
    (by the box's init as its pid namespace is torn down), and SIGKILL cannot hurry them."""
    return [pid for pid, owner in _proc_owners() if owner == uid and _state(pid) not in DEAD_STATES]


def _state(pid: int) -> str:
    """The one-letter scheduler state of ``pid`` (R, S, D, Z, ...); "X" if it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "X"


def _uids_with_processes() -> set[int]:
    return {owner for _, owner in _proc_owners()}


def _proc_owners() -> list[tuple[int, int]]:
    owners = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                owners.append((int(entry.name), entry.stat().st_uid))
            except FileNotFoundError:
                continue
    return owners


def _ensure_private_dir(path: Path) -> None:
    """The lock dir must be ours and not writable by others (they could pre-lock uids)."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    st = path.lstat()
    if not path.is_dir() or path.is_symlink() or st.st_uid != os.geteuid() or st.st_mode & 0o022:
        raise SandboxError(f"sandbox uid lock dir {path} must be a directory owned by uid {os.geteuid()}, "
                           "not group/world-writable")
