"""The tasks by name: the built-in packages, plugins, and any task registered in code.

``task("codecontests-o")`` for one task, ``tasks()`` for all, loaded on first use: the built-in
ones (``BUILTIN_TASKS``, each the ``TASK`` of its package ``linteval_ray.tasks.<package>``), then
the plugins named by ``$LINTEVAL_RAY_TASKS`` (module names, comma-separated, each holding a
``TASK``), then those given to ``register_task`` in code: as languages are registered
(``languages/registry.py``). The packages are imported by name, not by this module: they sit above it.
"""

from __future__ import annotations

import importlib
import os
import threading

from linteval_ray.errors import LintEvalError
from linteval_ray.schema.task import LINTEVAL_TASK
from linteval_ray.tasks.base import Task

# One package of this folder each (``linteval_ray.tasks.<package>``); LintEval first.
BUILTIN_TASKS = ("linteval", "codecontests_o")
# Modules (comma-separated) whose ``TASK`` is a task to add, in every process of a run (Ray workers
# inherit it; pipeline/run.py passes it to a cluster's).
PLUGINS_ENV = "LINTEVAL_RAY_TASKS"

_TASKS: dict[str, Task] = {}
_loaded = False
_lock = threading.RLock()


class UnknownTaskError(LintEvalError, ValueError):
    """A task name no package registered; the message lists the known ones."""


def register_task(spec: Task) -> Task:
    """Make ``spec`` known by its name; a second, different task for a name is a mistake."""
    with _lock:
        _load()
        _add(spec)
    return spec


def task(name: str) -> Task:
    """The task registered as ``name``; ``UnknownTaskError`` names the known ones."""
    known = _tasks()
    try:
        return known[name]
    except KeyError:
        raise UnknownTaskError(f"unknown task {name!r}: expected one of {', '.join(sorted(known))}") from None


def tasks() -> tuple[Task, ...]:
    """Every registered task: the built-in ones first, then the others."""
    return tuple(_tasks().values())


def linteval_task() -> Task:
    return task(LINTEVAL_TASK)


def plugin_modules() -> list[str]:
    """The modules ``$LINTEVAL_RAY_TASKS`` names."""
    return [name.strip() for name in os.environ.get(PLUGINS_ENV, "").split(",") if name.strip()]


def _tasks() -> dict[str, Task]:
    if not _loaded:
        with _lock:
            _load()
    return _TASKS


def _add(spec: Task) -> None:
    registered = _TASKS.setdefault(spec.name, spec)
    if registered is not spec:
        raise ValueError(f"task {spec.name!r} is registered twice")


def _load() -> None:
    """The built-in packages' and the plugins' tasks, once, ahead of any registered in code (under ``_lock``)."""
    global _loaded
    if _loaded:
        return
    registered = list(_TASKS.values())
    _TASKS.clear()
    for package in BUILTIN_TASKS:
        _add(importlib.import_module(f"linteval_ray.tasks.{package}").TASK)
    for module in plugin_modules():
        try:
            spec = importlib.import_module(module).TASK
        except (ImportError, AttributeError) as exc:
            raise UnknownTaskError(f"{PLUGINS_ENV}: {module} is not a module holding a task's TASK ({exc})") from None
        if _TASKS.get(spec.name) is not spec:
            _add(spec)
    for spec in registered:
        _add(spec)
    _loaded = True
