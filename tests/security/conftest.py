"""What the hostile-program modules share: the bundled problem they attack, one sample per language."""

from __future__ import annotations

import pytest

from linteval_ray.schema import LintEvalRecord
from tests.pipeline.samples import bundled_jsonl

PROBLEM = "lr01"


@pytest.fixture(scope="package")
def records() -> dict[str, LintEvalRecord]:
    """The bundled problem's first sample per language (its original is the good revision)."""
    found: dict[str, LintEvalRecord] = {}
    for line in bundled_jsonl().read_text().splitlines():
        record = LintEvalRecord.model_validate_json(line)
        if record.problem_id == PROBLEM:
            found.setdefault(record.language, record)
    assert set(found) == {"cpp", "py3", "java"}
    return found
