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
import re
import sys
from collections.abc import Mapping
from pathlib import Path

# C0 controls except \t and \n, DEL, C1 controls, bidi embeddings/overrides/isolates.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


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


def sanitize(text: str, paths: Mapping[str, str] | None = None) -> str:
    """``text`` with host paths replaced (longest first, so a path inside another is not
    half replaced) and unsafe characters escaped. ``paths``: host path -> placeholder,
    e.g. from ``host_paths``; default ``default_host_paths()``."""
    mapping = default_host_paths() if paths is None else paths
    for path in sorted((p for p in mapping if len(p) > 1), key=len, reverse=True):
        text = text.replace(path, mapping[path])
    return _UNSAFE.sub(_escape, text)
