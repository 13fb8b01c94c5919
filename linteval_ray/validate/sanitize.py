"""Make text that came from a program safe to store and print.

A program controls its stderr, its output and (through what it includes or names) the
compiler's messages; those end in result rows (``validation_error``, ``error``) and on the
terminal of whoever runs ``linteval-ray validate``. ``sanitize`` keeps the words and
replaces what could act on a terminal or tell about the host:

- control characters other than newline and tab (ESC sequences, OSC 52 clipboard writes,
  NUL, carriage returns that overprint, DEL, C1 controls) and the Unicode direction
  overrides become visible escapes such as ``\\x1b`` or ``\\u202e``;
- host paths a program can learn inside the box (``/proc/self/mountinfo`` names the
  bound sources) are replaced by placeholders: the worker's scratch dir ``<scratch>``,
  the content cache ``<cache>``, the Python environment ``<venv>``, the home dir ``<home>``
  and whatever the caller adds (toolchain folders). Paths inside the box (``/box``,
  ``/tmp``, ``/prog``) are the program's own view and stay.
"""

from __future__ import annotations

import os
import sys
import unicodedata
from collections.abc import Mapping
from pathlib import Path

# Control, format (bidi overrides, zero-width), surrogate, line and paragraph separators.
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
_KEPT = frozenset("\n\t")


def escape_char(char: str) -> str:
    """``char`` itself, or a visible escape (``\\x1b``, ``\\u202e``) when it could act on a
    terminal or hide text; newline and tab are kept."""
    if char in _KEPT or unicodedata.category(char) not in _UNSAFE_CATEGORIES:
        return char
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def escape_unsafe(text: str) -> str:
    """``text`` with every unsafe character escaped (``escape_char``)."""
    return "".join(map(escape_char, text))


def default_host_paths() -> dict[str, str]:
    """Host paths every worker has: its Python environment and home."""
    paths = {sys.prefix: "<venv>", os.path.realpath(sys.prefix): "<venv>"}
    home = os.path.expanduser("~")
    if home not in ("/", "~"):
        paths[home] = "<home>"
        paths[os.path.realpath(home)] = "<home>"
    return paths


def host_paths(placeholders: Mapping[str | Path, str]) -> dict[str, str]:
    """``default_host_paths()`` plus ``placeholders`` (each path also in its resolved form)."""
    paths = default_host_paths()
    for path, placeholder in placeholders.items():
        paths[str(path)] = placeholder
        paths[os.path.realpath(path)] = placeholder
    return paths


def replace_host_paths(text: str, paths: Mapping[str, str] | None = None) -> str:
    """``text`` with host paths replaced, longest first (a path inside another is not half
    replaced). ``paths``: host path -> placeholder, e.g. from ``host_paths``; default
    ``default_host_paths()``."""
    mapping = default_host_paths() if paths is None else paths
    for path in sorted((p for p in mapping if len(p) > 1), key=len, reverse=True):
        text = text.replace(path, mapping[path])
    return text


def sanitize(text: str, paths: Mapping[str, str] | None = None) -> str:
    """``text`` with host paths replaced and unsafe characters escaped."""
    return escape_unsafe(replace_host_paths(text, paths))
