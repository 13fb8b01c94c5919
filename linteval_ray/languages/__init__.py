"""The programming languages LintEval covers, one module each (``cpp``, ``py3``, ``java``).

Each module builds its ``LanguageSpec`` and registers it at its bottom; importing this
package imports them all. Adding a language is one new module here (imported below) plus
its tests, and its name in ``schema.record.Language``.
"""

from linteval_ray.languages.base import CompileCommand, CompileRequest, LanguageSpec, RunRequest
from linteval_ray.languages.registry import UnknownLanguageError, language, languages, register_language

__all__ = [
    "CompileCommand",
    "CompileRequest",
    "LanguageSpec",
    "RunRequest",
    "UnknownLanguageError",
    "cpp",
    "java",
    "language",
    "languages",
    "py3",
    "register_language",
]

# Importing a language module registers it; this order (the dataset's) is the order of languages().
from linteval_ray.languages import cpp, py3, java  # noqa: I001
