"""The languages by name: each language module registers its ``LanguageSpec`` when imported.

``linteval_ray.languages`` imports every language module, so asking it is enough:
``language("cpp")`` for one spec, ``languages()`` for all of them in registration order.
"""

from __future__ import annotations

from linteval_ray.errors import LintEvalError
from linteval_ray.languages.base import LanguageSpec

_SPECS: dict[str, LanguageSpec] = {}


class UnknownLanguageError(LintEvalError, ValueError):
    """A language name no module registered; the message lists the known ones."""


def register_language(spec: LanguageSpec) -> LanguageSpec:
    """Make ``spec`` known by its name; a second, different spec for a name is a mistake."""
    registered = _SPECS.setdefault(spec.name, spec)
    if registered is not spec:
        raise ValueError(f"language {spec.name!r} is registered twice")
    return spec


def language(name: str) -> LanguageSpec:
    """The spec registered as ``name``; ``UnknownLanguageError`` names the known ones."""
    try:
        return _SPECS[name]
    except KeyError:
        known = ", ".join(sorted(_SPECS))
        raise UnknownLanguageError(f"unknown language {name!r}: expected one of {known}") from None


def languages() -> tuple[LanguageSpec, ...]:
    """Every registered spec, in registration order."""
    return tuple(_SPECS.values())
