"""The programming languages LintEval covers: one package each (``cpp``, ``py3``, ``java``).

A language is one package of this folder: its ``SPEC`` (``base.LanguageSpec``) with its compile
and run commands, its linter adapter, suppression rules, alert families, lint-profile files
(``profiles/<profile>/``), tool rows, ``calibrate --derive`` rule, stack and plan figures.
``registry.py`` knows them by name (the built-in packages, plugins named by
``$LINTEVAL_RAY_LANGUAGES``, ``register_language``), and everything else asks it. This face
imports the contract and the registry only: the packages sit above the layers they use.
"""

from linteval_ray.languages.base import CompileCommand, CompileRequest, LanguageSpec, RunRequest
from linteval_ray.languages.registry import (
    UnknownLanguageError,
    language,
    language_names,
    languages,
    register_language,
)

__all__ = [
    "CompileCommand",
    "CompileRequest",
    "LanguageSpec",
    "RunRequest",
    "UnknownLanguageError",
    "language",
    "language_names",
    "languages",
    "register_language",
]
