"""``ToolSpec``: everything the toolchain knows about one external tool, as one row.

Rows live with what needs the tool: a language's rows in its package
(``linteval_ray/languages/<lang>/tools.py``), the judge's own (testlib, bwrap) in ``tools.py``,
which lists them all. Results depend on the versions, so each row pins its tool (pylint and
the clang-tidy wheel are pinned in pyproject.toml as well; the rows hold the values ``check``
compares the installed ones against).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from linteval_ray.toolchain.locate import Locator
from linteval_ray.toolchain.probe import Probe
from linteval_ray.toolchain.recipes import Recipe


@dataclass(frozen=True)
class Pin:
    """The versions ``check`` accepts: exactly ``version``, its major only, or any (``version=None``)."""

    version: str | None
    major_only: bool = False

    @property
    def expected(self) -> str:
        if self.version is None:
            return "any"
        return f"{self.version}.x" if self.major_only else self.version

    def accepts(self, version: str) -> bool:
        if self.version is None:
            return True
        if self.major_only:
            return version.split(".")[0] == self.version
        return version == self.version


ANY_VERSION = Pin(None)


def same_folder(path: Path) -> Path:
    """The located path itself is the folder to bind (a tool's home or include folder)."""
    return path


@dataclass(frozen=True)
class ToolSpec:
    """Everything the toolchain knows about one external tool."""

    name: str  # key in the manifest, the check report and ``Toolchain.paths``
    locate: Locator
    probe: Probe  # reads the version (and content hash) at the located path
    pin: Pin
    install: Recipe
    required: bool = True  # discover raises and check fails without it
    in_identity: bool = True  # hashed into toolchain_id
    listed_by_check: bool = True  # a row of `toolchain check` (astroid is not: it comes with pylint)
    # The folder a sandbox binds read-only (at its own path) for the tool to work in the box, from
    # its located path; None: nothing (a system tool under /usr, or one the box never runs).
    box_folder: Callable[[Path], Path] | None = None
