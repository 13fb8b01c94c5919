"""The programming languages LintEval covers: one package each (``cpp``, ``py3``, ``java``).

A language is one package of this folder: its ``SPEC`` (``base.LanguageSpec``) with its compile
and run commands, its linter adapter, suppression rules, alert families, lint-profile files
(``profiles/<profile>/``), tool rows, ``calibrate --derive`` rule, runner and plan figures.
``registry.py`` knows them by name (built-in ones listed in ``names.py``; others by
``register_language``), and everything else asks it. This face imports nothing: the schema
imports ``names.py``, which sits below every language package.
"""
