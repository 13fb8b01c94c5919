"""The package layout as a rule: contracts at the bottom, implementations on top, the command line
last. Read from the code (``ast``, nothing imported): every module-level import of ``linteval_ray``
(an import under ``if TYPE_CHECKING:`` or inside a function is left out: it runs later or never).
No import may close a circle, and none may reach a package of a higher layer than its own."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "linteval_ray"

# Every package of linteval_ray/languages/ (cpp, java, py3, ...): the registry loads them by name.
LANGUAGE_PACKAGES = "languages.<lang>"
# Every package of linteval_ray/tasks/ (linteval, codecontests_o, ...): their registry loads them by name.
TASK_PACKAGES = "tasks.<task>"
# Bottom to top; a package imports only packages of lower layers (a new package must be placed here).
LAYERS: list[set[str]] = [
    {"linteval_ray", "errors"},  # the root package holds only the version
    {"schema"},  # the typed boundaries: records, rows, results
    {"config", "stage"},  # the run's settings, the pipeline stage contract
    {"languages", "tasks"},  # the language and task contracts and registries (their packages: *_PACKAGES)
    {"toolchain", "store"},
    {"prompt", "load"},
    {"generate", "validate"},  # the pipeline's two heavy stages, each on its own
    {LANGUAGE_PACKAGES},  # a language's package implements contracts of the layers below; none imports one
    {"reduce"},
    {"report", "track"},
    {TASK_PACKAGES},  # a task's package implements the task contract on every layer below; none imports one
    {"pipeline", "calibrate"},  # the drivers that wire the stages
    {"sets", "suite"},
    {"cli", "plan"},
    {"__main__"},
]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in PACKAGE.rglob("*.py")}


def _executed_at_import(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of ``body`` that run when the module is imported (a function's do not)."""
    for node in body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from _executed_at_import(node.orelse)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        elif isinstance(node, ast.If | ast.Try | ast.With | ast.ClassDef):
            for block in ("body", "orelse", "finalbody", "handlers"):
                for child in getattr(node, block, []):
                    yield from _executed_at_import(child.body if isinstance(child, ast.ExceptHandler) else [child])
        else:
            yield node


def imports_of(module: str) -> set[str]:
    """The ``linteval_ray`` modules ``module`` imports when it is imported."""
    path = MODULES[module]
    found: set[str] = set()
    for node in _executed_at_import(ast.parse(path.read_text()).body):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
                base = ".".join([*here[: len(here) - node.level + 1], *([base] if base else [])])
            found |= {f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names}
    return {name for name in found if name in MODULES and name != module}


GRAPH = {module: imports_of(module) for module in MODULES}


def package_of(module: str) -> str:
    parts = module.split(".")
    if parts[1:2] == ["languages"] and len(parts) > 2 and (PACKAGE / "languages" / parts[2]).is_dir():
        return LANGUAGE_PACKAGES
    if parts[1:2] == ["tasks"] and len(parts) > 2 and (PACKAGE / "tasks" / parts[2]).is_dir():
        return TASK_PACKAGES
    return parts[1] if len(parts) > 1 else parts[0]


def layer_of(package: str) -> int:
    return next(i for i, layer in enumerate(LAYERS) if package in layer)


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_every_package_has_a_layer():
    packages = {package_of(module) for module in MODULES}
    assert packages - set().union(*LAYERS) == set(), "place the new package in LAYERS"
    assert set().union(*LAYERS) - packages == set(), "a package of LAYERS is gone: remove it"


def test_no_module_level_import_circle():
    assert circles(GRAPH) == []


def upward_imports(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    """(module, what it imports) where the import reaches a package of its own layer or a higher one."""
    return {(module, target) for module, targets in graph.items() for target in targets
            if package_of(module) != package_of(target)
            and layer_of(package_of(target)) >= layer_of(package_of(module))}


def test_no_package_imports_a_higher_layer():
    assert upward_imports(GRAPH) == set()


def test_a_language_package_is_imported_by_no_other_package():
    """The registry loads each language by name: nothing else depends on one language."""
    importers = {(module, target) for module, targets in GRAPH.items() for target in targets
                 if package_of(target) == LANGUAGE_PACKAGES and module.split(".")[:3] != target.split(".")[:3]}
    assert importers == set()


def test_a_task_package_is_imported_by_no_other_package():
    """The task registry loads each task by name: nothing else depends on one task."""
    importers = {(module, target) for module, targets in GRAPH.items() for target in targets
                 if package_of(target) == TASK_PACKAGES and module.split(".")[:3] != target.split(".")[:3]}
    assert importers == set()


def test_the_rules_see_a_circle_and_an_upward_import():
    """The checks themselves: a made-up graph with one circle and one import of a higher layer."""
    graph = {"linteval_ray.schema.a": {"linteval_ray.schema.b"}, "linteval_ray.schema.b": {"linteval_ray.schema.a"},
             "linteval_ray.config.c": {"linteval_ray.cli"}, "linteval_ray.cli": set()}
    assert circles(graph) == [["linteval_ray.schema.a", "linteval_ray.schema.b"]]
    assert upward_imports(graph) == {("linteval_ray.config.c", "linteval_ray.cli")}
