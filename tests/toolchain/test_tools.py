"""The tool table itself: every row complete, in step with ``Toolchain``, and an acyclic package."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from linteval_ray.errors import LintEvalError
from linteval_ray.languages import languages
from linteval_ray.languages.registry import judge_only_languages
from linteval_ray.toolchain import Toolchain, ToolchainError, ToolSpec, tools
from linteval_ray.toolchain.locate import Locator
from linteval_ray.toolchain.probe import Probe
from linteval_ray.toolchain.recipes import AptPackage, DebianArchive, NpmPackage, PipPackage, WheelMember
from linteval_ray.toolchain.spec import Pin
from linteval_ray.toolchain.tools import JUDGE_TOOLS

TOOLS = tools()
PACKAGE_DIR = Path(__file__).resolve().parents[2] / "linteval_ray" / "toolchain"
MODULES = sorted(f"linteval_ray.toolchain.{p.stem}" for p in PACKAGE_DIR.glob("*.py") if p.stem != "__main__")


@pytest.mark.parametrize("spec", TOOLS, ids=lambda spec: spec.name)
def test_every_tool_has_a_locate_probe_pin_and_install_path(spec: ToolSpec, tmp_path: Path) -> None:
    assert isinstance(spec.locate, Locator) and callable(spec.locate.find)
    assert isinstance(spec.probe, Probe) and callable(spec.probe.read)
    assert isinstance(spec.pin, Pin) and spec.pin.expected
    assert isinstance(spec.install, AptPackage | PipPackage | NpmPackage | WheelMember | DebianArchive)
    command = spec.install.command(tmp_path)
    package = {AptPackage: "package", PipPackage: "requirement", NpmPackage: "package", WheelMember: "wheel",
               DebianArchive: "target"}
    assert getattr(spec.install, package[type(spec.install)]) in command


@pytest.mark.parametrize("spec", TOOLS, ids=lambda spec: spec.name)
def test_every_tool_is_found_and_probed_on_this_machine(spec: ToolSpec, toolchain: Toolchain) -> None:
    path = spec.locate.find(toolchain.prefix)
    assert path is not None, f"{spec.name} not found; install with: {spec.install.command(toolchain.prefix)}"
    info = spec.probe.read(path)
    assert spec.pin.accepts(info.version), (spec.name, info.version, spec.pin.expected)


def test_the_table_is_the_judges_rows_and_each_languages_once() -> None:
    rows = [*JUDGE_TOOLS, *(row for spec in (*languages(), *judge_only_languages()) for row in spec.tools)]
    assert {spec.name for spec in TOOLS} == {row.name for row in rows}
    assert len({spec.name for spec in TOOLS}) == len(TOOLS)
    assert {row.name for row in languages()[0].tools} == {"gxx", "clang_tidy"}  # C++'s rows live in its package


def test_pins() -> None:
    assert Pin("12", major_only=True).accepts("12.2.0") and not Pin("12", major_only=True).accepts("13.1")
    assert Pin("12", major_only=True).expected == "12.x"
    assert Pin("4.1.4").accepts("4.1.4") and not Pin("4.1.4").accepts("4.1.5")
    assert Pin(None).accepts("anything") and Pin(None).expected == "any"


def test_missing_tools_are_named_with_their_exact_install_command(
    toolchain: Toolchain, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no g++, java, javac, bwrap
    with pytest.raises(ToolchainError) as caught:
        Toolchain.discover(toolchain.prefix)
    assert isinstance(caught.value, LintEvalError)
    message = str(caught.value)
    for spec in TOOLS:
        line = f"  {spec.name}: missing; install with: {spec.install.command(toolchain.prefix)}"
        assert (line in message) == (spec.name in {"gxx", "java", "javac"}), spec.name
    assert "apt-get install -y --no-install-recommends openjdk-17-jdk-headless" in message
    assert "bwrap" not in message  # optional


def toolchain_imports(module: str) -> set[str]:
    """The ``linteval_ray.toolchain.*`` modules ``module`` imports (at any level, TYPE_CHECKING included)."""
    tree = ast.parse((PACKAGE_DIR / f"{module.rsplit('.', 1)[1]}.py").read_text())
    names = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    names |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    return {name for name in names if name in MODULES and name != module}


def test_no_import_cycle_inside_the_package() -> None:
    graph = {module: toolchain_imports(module) for module in MODULES if not module.endswith("__init__")}
    graph = {module: deps - {"linteval_ray.toolchain.__init__"} for module, deps in graph.items()}
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, " -> ".join((*path, module))
        if module not in done:
            for dep in graph[module]:
                visit(dep, (*path, module))
            done.add(module)

    for module in graph:
        visit(module, ())
    leaves = {"probe", "locate", "recipes"}
    assert all(not graph[f"linteval_ray.toolchain.{leaf}"] for leaf in leaves)


@pytest.mark.parametrize("module", MODULES)
def test_each_module_imports_alone_in_a_fresh_interpreter(module: str) -> None:
    name = module.removesuffix(".__init__")
    proc = subprocess.run([sys.executable, "-c", f"import {name}"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
