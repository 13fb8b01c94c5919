"""The worker's scratch space: per-run work dirs that are always removed, and whether the
disk under them is full.

Programs decide what their work dirs hold (a 5,000-deep tree, names past PATH_MAX, dirs
without permissions), so removal walks with directory fds and an explicit stack, never
recursion or full paths, and never raises: a leftover is logged, the row goes on.
A full disk is told by ``statvfs`` (the system's own signal), never by a program's or
compiler's text, which the program controls.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import stat
import tempfile
import time
import weakref
from collections.abc import Iterator
from pathlib import Path

log = logging.getLogger(__name__)

# Below this much free space a failed compile or write is blamed on the disk: a compile
# needs room for its objects and binary (which the compiler deletes again when it fails).
FULL_DISK_HEADROOM_BYTES = 64 << 20

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def disk_is_full(path: Path, headroom: int = FULL_DISK_HEADROOM_BYTES) -> bool:
    """Whether the filesystem holding ``path`` has less than ``headroom`` bytes free."""
    try:
        st = os.statvfs(path)
    except OSError:
        return False
    return st.f_bavail * st.f_frsize < headroom


def free_bytes(path: Path) -> int:
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


@contextlib.contextmanager
def work_dir(parent: Path, prefix: str) -> Iterator[Path]:
    """A fresh directory under ``parent``, removed (whatever it then holds) on exit."""
    path = Path(tempfile.mkdtemp(dir=parent, prefix=prefix))
    try:
        yield path
    finally:
        remove_tree(path)


def remove_tree(path: Path) -> bool:
    """Delete ``path`` and everything below it without recursion or long paths; never raises.
    Returns False (and logs) if something could not be removed."""
    try:
        _remove(Path(path))
    except Exception as exc:  # noqa: BLE001 - cleanup must never fail a row or a close()
        log.warning("could not remove %s: %s: %s", path, type(exc).__name__, exc)
        return False
    return True


def _remove(path: Path) -> None:
    try:
        st = path.lstat()
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(st.st_mode):
        path.unlink()
        return
    fd = os.open(path, _DIR_FLAGS)
    # One open fd at a time: the path down (names, identities, subdirs still to visit) is
    # kept in memory and ".." leads back up, checked against the identity recorded on the way down.
    names: list[str] = []
    identities: list[tuple[int, int]] = [(st.st_dev, st.st_ino)]
    pending: list[list[str]] = [_clear_files(fd)]
    try:
        while pending:
            if pending[-1]:
                name = pending[-1].pop()
                child = os.open(name, _DIR_FLAGS, dir_fd=fd)
                os.close(fd)
                fd = child
                child_st = os.fstat(fd)
                names.append(name)
                identities.append((child_st.st_dev, child_st.st_ino))
                pending.append(_clear_files(fd))
                continue
            pending.pop()
            if not names:
                break
            parent = os.open("..", _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = parent
            identities.pop()
            parent_st = os.fstat(fd)
            if (parent_st.st_dev, parent_st.st_ino) != identities[-1]:
                raise OSError(f"directory moved while it was being removed, below {path}")
            os.rmdir(names.pop(), dir_fd=fd)
    finally:
        os.close(fd)
    path.rmdir()


def _clear_files(fd: int) -> list[str]:
    """Unlink every non-directory in the directory ``fd``; its subdirectories' names.
    The directory is made writable first (a program may have taken its own write bit away)."""
    os.chmod(fd, 0o700)
    subdirs = []
    with os.scandir(fd) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                subdirs.append(entry.name)
            else:
                os.unlink(entry.name, dir_fd=fd)
    return subdirs


class ScratchRoot:
    """A worker's scratch dir, ``<parent>/linteval-work-*``, removed by ``close()``, when the
    object is collected or at interpreter exit. A SIGKILLed worker runs none of these: its
    dir keeps a lock file only a live owner holds, and the next ``ScratchRoot`` on the node
    removes every sibling whose lock nobody holds."""

    PREFIX = "linteval-work-"
    LOCK = ".owner.lock"

    def __init__(self, parent: Path | None = None) -> None:
        parent = Path(parent or tempfile.gettempdir())
        sweep_stale_scratch(parent)
        self.path = Path(tempfile.mkdtemp(dir=parent, prefix=self.PREFIX))
        lock_fd = os.open(self.path / self.LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
        fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        self._finalizer = weakref.finalize(self, _release, self.path, lock_fd)

    def close(self) -> None:
        self._finalizer()


def _release(path: Path, lock_fd: int) -> None:
    remove_tree(path)
    os.close(lock_fd)


# A lock file younger than this may belong to a root whose owner has not locked it yet.
_STALE_AFTER_S = 30.0


def sweep_stale_scratch(parent: Path) -> list[Path]:
    """Remove scratch roots under ``parent`` whose owner is gone (its lock is free); the removed."""
    removed: list[Path] = []
    try:
        candidates = [p for p in parent.iterdir() if p.name.startswith(ScratchRoot.PREFIX)]
    except OSError:
        return removed
    for root in candidates:
        if _owner_is_gone(root / ScratchRoot.LOCK) and remove_tree(root):
            log.info("removed the scratch dir %s of a worker that is gone", root)
            removed.append(root)
    return removed


def _owner_is_gone(lock: Path) -> bool:
    try:
        fd = os.open(lock, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return False  # no lock file: not a root of ours (or one just being made)
    try:
        if time.time() - os.fstat(fd).st_mtime < _STALE_AFTER_S:
            return False
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    finally:
        os.close(fd)
    return True


def read_regular_file(directory: Path, name: str) -> bytes | None:
    """``directory/name`` if it is a regular file, never following a link a program may have
    planted (None when it is missing or anything else)."""
    try:
        dir_fd = os.open(directory, _DIR_FLAGS)
    except OSError:
        return None
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    except OSError:
        return None
    finally:
        os.close(dir_fd)
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return file.read()
