"""Helpers of the generation tests: prompt rows from the bundled records. The tiny model and the
guard for vllm are session fixtures in tests/fixtures/tiny_model.py (the cluster tests use them too)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from linteval_ray.schema.record import LintEvalRecord

BUNDLED = Path(__file__).resolve().parents[2] / "linteval_ray" / "load" / "bundled" / "linteval_bundled.jsonl"


def bundled_records() -> list[LintEvalRecord]:
    return [LintEvalRecord.model_validate_json(line) for line in BUNDLED.read_text().splitlines() if line.strip()]


def prompt_rows(records: list[LintEvalRecord], n: int) -> list[dict[str, Any]]:
    """Rows as the generation stage receives them, one per (record, draw)."""
    return [
        {
            "row_id": f"{r.sample_id}/{draw}",
            "sample_id": r.sample_id,
            "draw": draw,
            "language": r.language,
            "record_json": r.model_dump_json(),
            "extra_column": f"kept-{r.sample_id}",
        }
        for r in records
        for draw in range(n)
    ]
