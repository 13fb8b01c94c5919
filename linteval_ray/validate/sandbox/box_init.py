"""The box's init: sizes the box's /tmp, drops every privilege, then execs the program.

``box_init.c`` runs as the box's pid 1 in both bwrap modes, so there is one mechanism for
sizing /tmp and for dropping privileges (see its header). It proves it finished by writing
``READY`` to a pipe it closes before the program starts: a run without it is an infra error,
never a program run in an unsized or privileged box.
"""

from __future__ import annotations

from pathlib import Path

from linteval_ray.validate.sandbox.base import RunLimits
from linteval_ray.validate.sandbox.native import compiled

SOURCE = Path(__file__).with_name("box_init.c")
BOX_PATH = "/.box-init"  # where bwrap binds it in the box
READY = b"ready\n"


def box_init_binary() -> str:
    """The compiled box init for this source, built on first use."""
    return compiled(SOURCE)


def box_init_argv(*, ready_fd: int, seccomp_fd: int | None, limits: RunLimits, setuid: bool,
                  uid: int, gid: int) -> list[str]:
    """The init's command line; the program's argv follows it.

    ``setuid``: drop to ``uid``/``gid`` (bwrap runs as host root); otherwise enter a child user
    namespace mapping the caller's ``uid``/``gid`` with no further user namespaces allowed."""
    return [
        BOX_PATH,
        str(ready_fd),
        str(-1 if seccomp_fd is None else seccomp_fd),
        str(limits.tmp_mb << 20),
        str(tmp_inodes(limits)),
        "setuid" if setuid else "userns",
        str(uid),
        str(gid),
    ]


def tmp_inodes(limits: RunLimits) -> int:
    """Files the box's /tmp may hold: empty files cost kernel memory that ``size`` does not count."""
    return max(1024, limits.tmp_mb * 64)
