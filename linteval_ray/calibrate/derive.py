"""``calibrate --derive OUT``: a lint profile enabling exactly the checks the recorded alerts show.

Each language's rule is its spec's ``derive_config`` (its package's ``derive.py``): clang-tidy
``-*`` then every recorded check, pylint ``disable=all`` then every recorded symbol, PMD one rule
reference per recorded rule. A language the split has no sample of keeps the base profile's file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path

import yaml

from linteval_ray.calibrate.agreement import CalibrationSample
from linteval_ray.languages.registry import languages
from linteval_ray.validate.lint.profiles import PROFILE_FILE, LintProfile, copy_profile, load_profile


def recorded_checks(samples: Iterable[CalibrationSample]) -> dict[str, set[str]]:
    """language -> every check name its rows record."""
    seen: dict[str, set[str]] = {}
    for sample in samples:
        seen.setdefault(sample.language, set()).update(m.check_name for m in sample.recorded if m.check_name)
    return seen


def derive_profile(samples: list[CalibrationSample], out: Path, base: LintProfile, tools: Mapping[str, str],
                   dataset: str) -> LintProfile:
    """Write the derived profile into ``out`` (created; an existing profile there is replaced)."""
    seen = recorded_checks(samples)
    copy_profile(base, out)
    for spec in languages():
        if seen.get(spec.name):
            (out / spec.lint_config).write_text(spec.derive_config(seen[spec.name], base.file(spec.name), tools))
    counts = ", ".join(f"{lang}: {len(checks)} checks" for lang, checks in sorted(seen.items()))
    info = {"name": out.name, "version": 1,
            "description": f"Derived from the recorded alerts of {dataset} ({counts}) on "
                           f"{datetime.now(UTC).date()}; languages without samples keep {base.name}'s files."}
    (out / PROFILE_FILE).write_text(
        "# Written by `linteval-ray calibrate --derive`; use it with --set validation.lint_profile=<this folder>\n"
        + yaml.safe_dump(info, sort_keys=False))
    return load_profile(out)
