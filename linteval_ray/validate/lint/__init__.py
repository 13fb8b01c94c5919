"""Linting: the ``Linter`` contract (``base.py``), warm linters per language (``registry.py``),
lint profiles, and suppressions made inert.

Each language's adapter lives in its package (``linteval_ray/languages/<lang>/``): clang-tidy
(cpp), pylint (py3), PMD (java); the paper's alert categories in ``languages/categories.py``.
"""

from linteval_ray.validate.lint.base import Linter, LintError, LintOutcome
from linteval_ray.validate.lint.registry import Linters

__all__ = ["LintError", "LintOutcome", "Linter", "Linters"]
