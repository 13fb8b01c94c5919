"""Linting: clang-tidy (cpp), pylint (py3) and PMD (java) behind one ``Linter`` interface."""

from linteval_ray.validate.lint.base import Linter, LintError, LintOutcome
from linteval_ray.validate.lint.categories import PAPER_CATEGORIES, paper_category
from linteval_ray.validate.lint.registry import Linters

__all__ = ["PAPER_CATEGORIES", "LintError", "LintOutcome", "Linter", "Linters", "paper_category"]
