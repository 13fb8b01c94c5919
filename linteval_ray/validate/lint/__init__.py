"""Linting: the ``Linter`` contract (``base.py``), warm linters per language (``registry.py``),
lint profiles, suppressions made inert, and the paper's alert categories.

Each language's adapter lives in its package (``linteval_ray/languages/<lang>/``): clang-tidy
(cpp), pylint (py3), PMD (java). This face imports nothing: the adapters sit above ``base.py``.
"""
