"""C++'s tools: g++ (compiles submissions and testlib tools) and the clang-tidy wheel."""

from __future__ import annotations

from pathlib import Path

from linteval_ray.toolchain.locate import OnPath, WheelExecutable
from linteval_ray.toolchain.probe import VersionCommand
from linteval_ray.toolchain.recipes import AptPackage, PipPackage
from linteval_ray.toolchain.spec import Pin, ToolSpec

CLANG_TIDY_VERSION = "23.1.4"  # PyPI wheel `clang-tidy`, not Debian's clang-tidy


def wheel_prefix(binary: Path) -> Path:
    """The wheel's binary finds its builtin headers in ../lib/clang: the whole prefix is bound."""
    return binary.parent.parent if binary.parent.name == "bin" else binary.parent


GXX = ToolSpec(
    name="gxx",
    locate=OnPath("g++"), probe=VersionCommand("-dumpfullversion"),
    pin=Pin("12", major_only=True),  # Debian bookworm's g++ (C++17)
    install=AptPackage("g++"),
)
CLANG_TIDY = ToolSpec(
    name="clang_tidy",
    locate=WheelExecutable("clang_tidy", "clang-tidy"), probe=VersionCommand("--version", "LLVM version"),
    pin=Pin(CLANG_TIDY_VERSION), install=PipPackage("clang-tidy", CLANG_TIDY_VERSION),
    box_folder=wheel_prefix,
)
