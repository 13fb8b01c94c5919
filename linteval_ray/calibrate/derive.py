"""``calibrate --derive OUT``: a lint profile enabling exactly the checks the recorded alerts show.

- clang-tidy: ``-*`` then every recorded check name; a recorded ``clang-diagnostic-X`` is both
  listed and turned on with ``-WX`` (compiler warnings only exist when their flag is on;
  ``clang-diagnostic-error`` needs none). ``-Wall``/``-Wextra`` are dropped.
- pylint: ``disable=all`` then ``enable=`` every recorded symbol.
- PMD: one ``<rule ref="category/java/<category>.xml/<Rule>"/>`` per recorded rule, the category
  looked up in the installed PMD's own rule catalogue.
A language the split has no sample of keeps the base profile's file.
"""

from __future__ import annotations

import re
import shutil
import zipfile
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from xml.sax.saxutils import quoteattr

import yaml

from linteval_ray.calibrate.agreement import CalibrationSample
from linteval_ray.validate.lint.clang_tidy import ClangTidyConfig
from linteval_ray.validate.lint.profiles import PROFILE_FILE, LintProfile, load_profile

DIAGNOSTIC_PREFIX = "clang-diagnostic-"
ALWAYS_ON_DIAGNOSTICS = frozenset({"error"})
BROAD_WARNING_FLAGS = frozenset({"-Wall", "-Wextra", "-Weverything", "-pedantic", "-Wpedantic"})
_RULE_NAME = re.compile(r'<rule\s+name="([A-Za-z0-9_]+)"')


def recorded_checks(samples: Iterable[CalibrationSample]) -> dict[str, set[str]]:
    """language -> every check name its rows record."""
    seen: dict[str, set[str]] = {}
    for sample in samples:
        seen.setdefault(sample.language, set()).update(m.check_name for m in sample.recorded if m.check_name)
    return seen


def clang_tidy_config(checks: set[str], base: ClangTidyConfig) -> str:
    diagnostics = sorted(c[len(DIAGNOSTIC_PREFIX):] for c in checks if c.startswith(DIAGNOSTIC_PREFIX))
    flags = [a for a in base.compile_args if a not in BROAD_WARNING_FLAGS]
    flags += [f"-W{name}" for name in diagnostics if name not in ALWAYS_ON_DIAGNOSTICS]
    body = {"checks": ",".join(["-*", *sorted(checks)]), "compile_args": flags}
    dumped: str = yaml.safe_dump(body, sort_keys=False)  # no stream given: returns the text
    return ("# Derived by `linteval-ray calibrate --derive`: exactly the checks the recorded alerts show;\n"
            "# each recorded clang-diagnostic-X is turned on by -WX.\n") + dumped


def pylintrc(symbols: set[str], base: Path) -> str:
    main = base.read_text().split("[MESSAGES CONTROL]", 1)[0].rstrip()
    enable = ",\n       ".join(sorted(symbols))
    return (f"{main}\n\n[MESSAGES CONTROL]\n"
            "# Derived by `linteval-ray calibrate --derive`: exactly the recorded symbols.\n"
            f"disable=all\nenable={enable}\n")


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


def derive_profile(samples: list[CalibrationSample], out: Path, base: LintProfile, pmd_home: Path,
                   dataset: str) -> LintProfile:
    """Write the derived profile into ``out`` (created; an existing profile there is replaced)."""
    seen = recorded_checks(samples)
    out.mkdir(parents=True, exist_ok=True)
    for name in ("clang-tidy.yaml", "pylintrc", "pmd-ruleset.xml"):
        shutil.copyfile(base.file(name), out / name)
    if seen.get("cpp"):
        (out / "clang-tidy.yaml").write_text(
            clang_tidy_config(seen["cpp"], ClangTidyConfig.load(base.file("clang-tidy.yaml"))))
    if seen.get("py3"):
        (out / "pylintrc").write_text(pylintrc(seen["py3"], base.file("pylintrc")))
    if seen.get("java"):
        (out / "pmd-ruleset.xml").write_text(pmd_ruleset(seen["java"], pmd_categories(pmd_home)))
    counts = ", ".join(f"{lang}: {len(checks)} checks" for lang, checks in sorted(seen.items()))
    info = {"name": out.name, "version": 1,
            "description": f"Derived from the recorded alerts of {dataset} ({counts}) on "
                           f"{datetime.now(UTC).date()}; languages without samples keep {base.name}'s files."}
    (out / PROFILE_FILE).write_text(
        "# Written by `linteval-ray calibrate --derive`; use it with --set validation.lint_profile=<this folder>\n"
        + yaml.safe_dump(info, sort_keys=False))
    return load_profile(out)
