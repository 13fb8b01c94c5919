"""The tool table: the judge's own rows (testlib, bwrap) and every language's (its ``tools``).

Adding a tool is one row where it is needed: a language's rows in its package, a row of the
judge's here. ``tools()`` asks the language registry, so a registered language's tools are
located, probed, installed and checked like the built-in ones.
"""

from __future__ import annotations

from pathlib import Path

from linteval_ray.languages.registry import judge_only_languages, languages
from linteval_ray.toolchain.locate import OnPath, UnderPrefix
from linteval_ray.toolchain.probe import PinnedDigest, VersionCommand
from linteval_ray.toolchain.recipes import AptPackage, WheelMember
from linteval_ray.toolchain.spec import ANY_VERSION, Pin, ToolSpec, same_folder

TESTLIB_VERSION = "0.9.45"
TESTLIB_SHA256 = "bb323e3c89285214966076e0d23d5a295c5f6126da7ff198c1276ddb95ecb1a0"

TESTLIB = ToolSpec(
    name="testlib",
    locate=UnderPrefix("include", marker="testlib.h"),
    probe=PinnedDigest("testlib.h", TESTLIB_SHA256, TESTLIB_VERSION),
    pin=Pin(TESTLIB_VERSION),
    # the PyPI wheel that carries testlib.h 0.9.45
    install=WheelMember("autocode-mcp==1.0.6", member="autocode_mcp/templates/testlib.h",
                        target="include/testlib.h", sha256=TESTLIB_SHA256),
    box_folder=same_folder,
)
BWRAP = ToolSpec(
    name="bwrap",
    locate=OnPath("bwrap"), probe=VersionCommand("--version", "bubblewrap"),
    pin=ANY_VERSION, install=AptPackage("bubblewrap"),
    # the sandbox decides whether it needs bwrap; the mechanism changes no verdict or alert
    required=False, in_identity=False,
)
JUDGE_TOOLS = (TESTLIB, BWRAP)


def tools() -> tuple[ToolSpec, ...]:
    """Every tool: each language's rows in language order (a row two languages share, once), the
    judge-only languages' (Python 2), then the judge's own."""
    rows: dict[str, ToolSpec] = {}
    specs = (*languages(), *judge_only_languages())
    for spec in (*(row for language in specs for row in language.tools), *JUDGE_TOOLS):
        if rows.setdefault(spec.name, spec) != spec:
            raise ValueError(f"two different tool rows are named {spec.name!r}")
    return tuple(rows.values())


def tool(name: str) -> ToolSpec:
    for spec in tools():
        if spec.name == name:
            return spec
    raise KeyError(name)


def locate_all(prefix: Path) -> dict[str, str | None]:
    """Each tool's path under/for ``prefix``, or None when missing."""
    return {spec.name: spec.locate.find(prefix) for spec in tools()}
