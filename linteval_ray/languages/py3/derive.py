"""``calibrate --derive`` for pylint: ``disable=all`` then ``enable=`` every recorded symbol."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def pylintrc(symbols: set[str], base: Path, tools: Mapping[str, str]) -> str:
    """The base's ``pylintrc`` with its messages control replaced by exactly ``symbols``."""
    main = base.read_text().split("[MESSAGES CONTROL]", 1)[0].rstrip()
    enable = ",\n       ".join(sorted(symbols))
    return (f"{main}\n\n[MESSAGES CONTROL]\n"
            "# Derived by `linteval-ray calibrate --derive`: exactly the recorded symbols.\n"
            f"disable=all\nenable={enable}\n")
