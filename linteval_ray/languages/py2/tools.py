"""Python 2.7's one tool: Debian 11's CPython 2.7.18, unpacked into the toolchain prefix.

Debian 12 and PyPI carry no CPython 2.7; Debian 11 (bullseye) does, in deb.debian.org's pool (and,
once bullseye is archived, archive.debian.org's: the same paths). ``toolchain install`` downloads
the four packages below (the interpreter, its minimal core and its standard library), checks each
against its pinned sha256 and unpacks their files into ``<prefix>/python2.7`` (``DebianArchive``: no
dpkg, no root, nothing installed on the system). Its binary needs only libc and zlib; modules bound
to libraries Debian 12 replaced (``_ssl``: libssl1.1, ``_ctypes``: libffi7) do not import, and no
competitive-programming solution needs them. The box binds the unpacked tree read-only at its own
path (``box_folder``), where the interpreter finds its standard library relative to itself.
"""

from __future__ import annotations

from pathlib import Path

from linteval_ray.toolchain.locate import FileUnderPrefix
from linteval_ray.toolchain.probe import VersionCommand
from linteval_ray.toolchain.recipes import DebFile, DebianArchive
from linteval_ray.toolchain.spec import Pin, ToolSpec

VERSION = "2.7.18"
DEBIAN_VERSION = "2.7.18-8+deb11u1"
FOLDER = "python2.7"
INTERPRETER = f"{FOLDER}/usr/bin/python2.7"
POOL = "pool/main/p/python2.7"
DEBS = (
    DebFile(f"{POOL}/libpython2.7-minimal_{DEBIAN_VERSION}_amd64.deb",
            "85833c92314011b89bbead6f9a5a7a360b5ee4f9b95e001225afead4ebf9f7d3"),
    DebFile(f"{POOL}/python2.7-minimal_{DEBIAN_VERSION}_amd64.deb",
            "44f0cdc1a343303d31c55fcb3a6402cfe326adf749ec30e375e6e0c0c5f7c1f7"),
    DebFile(f"{POOL}/libpython2.7-stdlib_{DEBIAN_VERSION}_amd64.deb",
            "3e627d6d8992b853e000b8a4c09dda613fb767cdb711a2eac20ebc9f867b593c"),
    DebFile(f"{POOL}/python2.7_{DEBIAN_VERSION}_amd64.deb",
            "0b0b34b069d41970af75a4fe5b9012465e480fc0a0488ec16554d6299fe0b46e"),
)


def unpacked_tree(interpreter: Path) -> Path:
    """``<prefix>/python2.7``: the interpreter is ``usr/bin/python2.7`` in it, its library ``usr/lib/python2.7``."""
    return interpreter.parents[2]


PYTHON2 = ToolSpec(
    name="python2",
    locate=FileUnderPrefix(INTERPRETER), probe=VersionCommand("--version", "Python"),
    pin=Pin(VERSION), install=DebianArchive(debs=DEBS, target=FOLDER, machine="x86_64"),
    # where the platform allows it (the suite says what to do without it)
    required=False, box_folder=unpacked_tree,
)
