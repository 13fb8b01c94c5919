"""Where a tool is found (a leaf: no toolchain imports).

Each locator kind is a frozen value the tool table holds; ``find(prefix)`` returns
the tool's path or None (never raises: ``check`` reports every missing tool at once).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable


@runtime_checkable
class Locator(Protocol):
    def find(self, prefix: Path) -> str | None: ...


@dataclass(frozen=True)
class OnPath:
    """A system binary (Debian package), found on $PATH wherever the prefix points."""

    name: str

    def find(self, prefix: Path) -> str | None:
        return shutil.which(self.name)


@dataclass(frozen=True)
class WheelExecutable:
    """A binary shipped in a PyPI wheel of this interpreter (the clang-tidy wheel, not Debian's)."""

    module: str
    executable: str

    def find(self, prefix: Path) -> str | None:
        try:
            # The wheel has no type information; only ``get_executable(name) -> Path`` is used.
            wheel = importlib.import_module(self.module)
        except ImportError:
            return None
        try:
            # Resolved: the sandbox binds the real folder, and a symlinked venv's path is not in the box.
            return str(Path(wheel.get_executable(self.executable)).resolve())
        except FileNotFoundError:
            return None


@dataclass(frozen=True)
class UnderPrefix:
    """A folder of the toolchain prefix, present once ``marker`` exists inside it."""

    folder: str
    marker: str

    def find(self, prefix: Path) -> str | None:
        folder = prefix / self.folder
        return str(folder) if (folder / self.marker).exists() else None


@dataclass(frozen=True)
class FileUnderPrefix:
    """A file of the toolchain prefix (an interpreter a recipe unpacked there)."""

    path: str

    def find(self, prefix: Path) -> str | None:
        file = prefix / self.path
        return str(file) if file.is_file() else None


@dataclass(frozen=True)
class InstalledDistribution:
    """A Python distribution of this interpreter's environment; its path is the site-packages folder."""

    distribution: str

    def find(self, prefix: Path) -> str | None:
        try:
            return str(importlib.metadata.distribution(self.distribution).locate_file(""))
        except importlib.metadata.PackageNotFoundError:
            return None
