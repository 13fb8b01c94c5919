"""The languages by name: the built-in packages, loaded on first use, and any registered language.

``language("cpp")`` for one spec, ``languages()`` for all of them: the built-in ones in the
dataset's order (``names.BUILTIN_LANGUAGES``, each the ``SPEC`` of its package
``linteval_ray.languages.<name>``), then the registered ones in registration order. A language
defined elsewhere (a plugin, a test) is one ``register_language(spec)`` call: the schema, the
CLI, the toolchain, the linters, the judge, ``calibrate`` and ``plan`` all ask this registry.
The packages are imported by name, not by this module: they sit above it.
"""

from __future__ import annotations

import importlib
import threading

from linteval_ray.errors import LintEvalError
from linteval_ray.languages.base import LanguageSpec
from linteval_ray.languages.names import BUILTIN_LANGUAGES, add_language_name

_SPECS: dict[str, LanguageSpec] = {}
_loaded = False
_lock = threading.RLock()


class UnknownLanguageError(LintEvalError, ValueError):
    """A language name no package registered; the message lists the known ones."""


def register_language(spec: LanguageSpec) -> LanguageSpec:
    """Make ``spec`` known by its name; a second, different spec for a name is a mistake."""
    with _lock:
        _load_builtins()
        registered = _SPECS.setdefault(spec.name, spec)
        if registered is not spec:
            raise ValueError(f"language {spec.name!r} is registered twice")
        add_language_name(spec.name)
    return spec


def language(name: str) -> LanguageSpec:
    """The spec registered as ``name``; ``UnknownLanguageError`` names the known ones."""
    specs = _specs()
    try:
        return specs[name]
    except KeyError:
        known = ", ".join(sorted(specs))
        raise UnknownLanguageError(f"unknown language {name!r}: expected one of {known}") from None


def languages() -> tuple[LanguageSpec, ...]:
    """Every registered spec: the built-in ones in the dataset's order, then the others."""
    return tuple(_specs().values())


def testlib_language() -> LanguageSpec:
    """The language testlib's generators, validators and checkers are compiled as."""
    for spec in languages():
        if spec.testlib_tools:
            return spec
    raise UnknownLanguageError("no registered language compiles testlib tools")


def _specs() -> dict[str, LanguageSpec]:
    if not _loaded:
        with _lock:
            _load_builtins()
    return _SPECS


def _load_builtins() -> None:
    """Each built-in package's ``SPEC``, once, ahead of any other language (under ``_lock``)."""
    global _loaded
    if _loaded:
        return
    builtins = {name: importlib.import_module(f"linteval_ray.languages.{name}").SPEC for name in BUILTIN_LANGUAGES}
    others = {name: spec for name, spec in _SPECS.items() if name not in builtins}
    _SPECS.clear()
    _SPECS.update(builtins)
    _SPECS.update(others)
    _loaded = True
