"""The languages by name: the built-in packages, plugins, and any language registered in code.

``language("cpp")`` for one spec, ``languages()`` for all of them, loaded on first use: the
built-in ones in the dataset's order (``BUILTIN_LANGUAGES``, each the ``SPEC`` of its package
``linteval_ray.languages.<name>``), then the plugins named by ``$LINTEVAL_RAY_LANGUAGES`` (module
names, comma-separated, each holding a ``SPEC``), then those given to ``register_language`` in
code. The schema, the CLI, the toolchain, the linters, the judge, ``calibrate`` and ``plan`` all
ask this registry. The packages are imported by name, not by this module: they sit above it.
"""

from __future__ import annotations

import importlib
import os
import threading

from linteval_ray.errors import LintEvalError
from linteval_ray.languages.base import LanguageSpec

# One package of this folder each (``linteval_ray.languages.<name>``), in the dataset's order.
BUILTIN_LANGUAGES = ("cpp", "py3", "java")
# Judge-only languages (``linteval_ray.languages.<name>``): a way of running solutions that is never a
# record's language (Python 2: ``linteval-ray suite`` judges human solutions in it). Each package
# names the registered language it varies (``BASE``) and makes its spec from it (``variant``); the
# registry knows it by name (``language``) and the toolchain by its tools (``judge_only_languages``).
JUDGE_ONLY_LANGUAGES = ("py2",)
# Modules (comma-separated) whose ``SPEC`` is a language to add: how a language defined outside
# this package is registered in every process of a run (Ray workers inherit it, see pipeline/run.py).
PLUGINS_ENV = "LINTEVAL_RAY_LANGUAGES"

_SPECS: dict[str, LanguageSpec] = {}
_VARIANTS: dict[str, LanguageSpec] = {}  # found by name, outside languages(): see register_variant
_JUDGE_ONLY: dict[str, LanguageSpec] = {}  # among the variants: see JUDGE_ONLY_LANGUAGES
_SOURCES: dict[str, str] = {}  # language -> where its spec came from (manifest.json ``languages``)
IN_CODE = "register_language"
_loaded = False
_lock = threading.RLock()


class UnknownLanguageError(LintEvalError, ValueError):
    """A language name no package registered; the message lists the known ones."""


def register_language(spec: LanguageSpec) -> LanguageSpec:
    """Make ``spec`` known by its name; a second, different spec for a name is a mistake."""
    with _lock:
        _load()
        _add(spec)
        _SOURCES.setdefault(spec.name, IN_CODE)
    return spec


def register_variant(spec: LanguageSpec) -> LanguageSpec:
    """Make ``spec`` known by its name to ``language`` only: a way of compiling and running a
    registered language that a task's judging profile uses (CodeContests-O's compat profile: C++
    without -O2), never a record's language, a report's column or a toolchain entry."""
    with _lock:
        registered = _VARIANTS.setdefault(spec.name, spec)
    if registered is not spec or spec.name in _specs():
        raise ValueError(f"language {spec.name!r} is registered twice")
    return spec


def language(name: str) -> LanguageSpec:
    """The spec registered as ``name`` (or a variant's); ``UnknownLanguageError`` names the known ones."""
    specs = _specs()
    try:
        return specs[name] if name in specs else _VARIANTS[name]
    except KeyError:
        known = ", ".join(sorted(specs))
        raise UnknownLanguageError(f"unknown language {name!r}: expected one of {known}") from None


def judge_only_languages() -> tuple[LanguageSpec, ...]:
    """The judge-only languages (``JUDGE_ONLY_LANGUAGES``) whose base language is registered."""
    _specs()
    return tuple(_JUDGE_ONLY.values())


def languages() -> tuple[LanguageSpec, ...]:
    """Every registered spec: the built-in ones in the dataset's order, then the others."""
    return tuple(_specs().values())


def language_names() -> tuple[str, ...]:
    """Every registered language's name, in the order of ``languages()``."""
    return tuple(_specs())


def testlib_language() -> LanguageSpec:
    """The language testlib's generators, validators and checkers are compiled as."""
    for spec in languages():
        if spec.testlib_tools:
            return spec
    raise UnknownLanguageError("no registered language compiles testlib tools")


def language_sources() -> dict[str, str]:
    """Each registered language -> the module its spec came from (a built-in package, a plugin named
    by ``$LINTEVAL_RAY_LANGUAGES``), or ``register_language`` for one registered in code."""
    return {name: _SOURCES.get(name, IN_CODE) for name in _specs()}


def plugin_modules() -> list[str]:
    """The modules ``$LINTEVAL_RAY_LANGUAGES`` names."""
    return [name.strip() for name in os.environ.get(PLUGINS_ENV, "").split(",") if name.strip()]


def _specs() -> dict[str, LanguageSpec]:
    if not _loaded:
        with _lock:
            _load()
    return _SPECS


def _add(spec: LanguageSpec) -> None:
    registered = _SPECS.setdefault(spec.name, spec)
    if registered is not spec:
        raise ValueError(f"language {spec.name!r} is registered twice")


def _load() -> None:
    """The built-in packages' and the plugins' specs, once, ahead of any registered in code
    (under ``_lock``)."""
    global _loaded
    if _loaded:
        return
    registered = list(_SPECS.values())
    _SPECS.clear()
    for name in BUILTIN_LANGUAGES:
        _add(importlib.import_module(f"linteval_ray.languages.{name}").SPEC)
        _SOURCES[name] = f"linteval_ray.languages.{name}"
    for module in plugin_modules():
        try:
            spec = importlib.import_module(module).SPEC
        except (ImportError, AttributeError) as exc:
            raise UnknownLanguageError(f"{PLUGINS_ENV}: {module} is not a module holding a language's SPEC "
                                       f"({exc})") from None
        if _SPECS.get(spec.name) is not spec:
            _add(spec)
            _SOURCES[spec.name] = module
    for spec in registered:
        _add(spec)
    for name in JUDGE_ONLY_LANGUAGES:
        package = importlib.import_module(f"linteval_ray.languages.{name}")
        if package.BASE in _SPECS and name not in _JUDGE_ONLY:
            _JUDGE_ONLY[name] = _VARIANTS[name] = package.variant(_SPECS[package.BASE])
    _loaded = True
