"""Pick bundled samples by what their reference revision does (data/problems/*/samples/*/expect.yaml)."""

from __future__ import annotations

from pathlib import Path

import yaml

from linteval_ray.schema.bundled import bundled_path

PROBLEMS = Path(__file__).resolve().parents[2] / "data" / "problems"


def expectations() -> dict[str, dict]:
    """sample_id → expect.yaml content."""
    return {
        p.parent.name: yaml.safe_load(p.read_text())
        for p in sorted(PROBLEMS.glob("*/samples/*/expect.yaml"))
    }


def pick(kind: str, language: str | None = None) -> str:
    """The first bundled sample of ``kind`` (and ``language``)."""
    for sample_id, expect in expectations().items():
        if expect["kind"] == kind and (language is None or f"_{language}_" in sample_id):
            return sample_id
    raise LookupError(f"no bundled sample of kind {kind!r} for {language!r}")


def small_mix() -> list[str]:
    """Four samples: every language, a pass and a failure of each side."""
    return [pick("clean_fix", "cpp"), pick("fails_tests", "py3"), pick("partial_fix", "java"), pick("no_code")]


def bundled_jsonl() -> Path:
    return bundled_path()
