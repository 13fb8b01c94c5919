"""``calibrate --derive`` for PMD: one ``<rule ref="category/java/<category>.xml/<Rule>"/>`` per
recorded rule, the category looked up in the installed PMD's own rule catalogue."""

from __future__ import annotations

import re
import zipfile
from collections.abc import Mapping
from pathlib import Path
from xml.sax.saxutils import quoteattr

_RULE_NAME = re.compile(r'<rule\s+name="([A-Za-z0-9_]+)"')


def pmd_categories(pmd_home: Path) -> dict[str, str]:
    """Rule name -> its category file ('bestpractices', ...), from the PMD jar's catalogue."""
    categories: dict[str, str] = {}
    for jar in sorted((pmd_home / "lib").glob("pmd-java-*.jar")):
        with zipfile.ZipFile(jar) as archive:
            for name in archive.namelist():
                if name.startswith("category/java/") and name.endswith(".xml"):
                    category = Path(name).stem
                    for rule in _RULE_NAME.findall(archive.read(name).decode("utf-8", "replace")):
                        categories.setdefault(rule, category)
    return categories


def pmd_ruleset(rules: set[str], categories: dict[str, str]) -> str:
    refs = [f"    <rule ref={quoteattr(f'category/java/{categories[r]}.xml/{r}')}/>" for r in sorted(rules)
            if r in categories]
    unknown = sorted(r for r in rules if r not in categories)
    note = f"\n     Recorded rules this PMD does not know (left out): {', '.join(unknown)}" if unknown else ""
    return ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            f"<!-- Derived by linteval-ray calibrate (derive option): exactly the recorded rules.{note} -->\n"
            "<ruleset name=\"derived\" xmlns=\"http://pmd.sourceforge.net/ruleset/2.0.0\"\n"
            "         xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"\n"
            "         xsi:schemaLocation=\"http://pmd.sourceforge.net/ruleset/2.0.0 "
            "https://pmd.sourceforge.io/ruleset_2_0_0.xsd\">\n"
            "    <description>Rules seen in the dataset's recorded alerts.</description>\n"
            + "\n".join(refs) + "\n</ruleset>\n")


def derived_ruleset(rules: set[str], base: Path, tools: Mapping[str, str]) -> str:
    """The ruleset of exactly ``rules`` (the base's is not needed: PMD's catalogue places each)."""
    return pmd_ruleset(rules, pmd_categories(Path(tools["pmd"])))
