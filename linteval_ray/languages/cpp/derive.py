"""``calibrate --derive`` for clang-tidy: ``-*`` then every recorded check name.

A recorded ``clang-diagnostic-X`` is both listed and turned on with ``-WX`` (compiler warnings
only exist when their flag is on; ``clang-diagnostic-error`` needs none); the base's broad
warning flags (``-Wall``/``-Wextra``, ...) are dropped.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import yaml

from linteval_ray.languages.cpp.clang_tidy import ClangTidyConfig

DIAGNOSTIC_PREFIX = "clang-diagnostic-"
ALWAYS_ON_DIAGNOSTICS = frozenset({"error"})
BROAD_WARNING_FLAGS = frozenset({"-Wall", "-Wextra", "-Weverything", "-pedantic", "-Wpedantic"})


def clang_tidy_config(checks: set[str], base: Path, tools: Mapping[str, str]) -> str:
    """The ``clang-tidy.yaml`` of exactly ``checks``, on the base's compile flags."""
    diagnostics = sorted(c[len(DIAGNOSTIC_PREFIX):] for c in checks if c.startswith(DIAGNOSTIC_PREFIX))
    flags = [a for a in ClangTidyConfig.load(base).compile_args if a not in BROAD_WARNING_FLAGS]
    flags += [f"-W{name}" for name in diagnostics if name not in ALWAYS_ON_DIAGNOSTICS]
    body = {"checks": ",".join(["-*", *sorted(checks)]), "compile_args": flags}
    dumped: str = yaml.safe_dump(body, sort_keys=False)  # no stream given: returns the text
    return ("# Derived by `linteval-ray calibrate --derive`: exactly the checks the recorded alerts show;\n"
            "# each recorded clang-diagnostic-X is turned on by -WX.\n") + dumped
