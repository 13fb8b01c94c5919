"""Program text is made safe to store and print: escapes visible, host paths as placeholders."""

from __future__ import annotations

import sys

from linteval_ray.validate.sanitize import host_paths, sanitize


def test_control_characters_and_direction_overrides_become_visible_escapes() -> None:
    text = "ok\tline\n\x1b[31mred\x1b]52;c;aGk=\x07 nul\x00 cr\r del\x7f c1\x9b rlo\u202e end"
    clean = sanitize(text, {})
    assert clean == ("ok\tline\n\\x1b[31mred\\x1b]52;c;aGk=\\x07 nul\\x00 cr\\x0d del\\x7f c1\\x9b rlo\\u202e end")
    assert sanitize("héllo wörld ✓", {}) == "héllo wörld ✓"


def test_host_paths_become_placeholders_longest_first() -> None:
    paths = host_paths({"/srv/work": "<scratch>", "/srv/work/cache": "<cache>"})
    text = f"/srv/work/run-1/x /srv/work/cache/tests/01.in {sys.prefix}/lib/python3.11 /box/sol /tmp/f"
    assert sanitize(text, paths) == "<scratch>/run-1/x <cache>/tests/01.in <venv>/lib/python3.11 /box/sol /tmp/f"
