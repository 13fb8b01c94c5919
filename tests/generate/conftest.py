"""Helpers of the generation tests: prompt rows from the bundled records, the tiny model's vLLM config,
and the base run of the vLLM backend (one engine start, shared by test_vllm.py and test_endpoint.py).
The tiny model and the guard for vllm are session fixtures in tests/fixtures/tiny_model.py (the
cluster tests use them too)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from linteval_ray.config import VLLMGeneration
from linteval_ray.schema.record import LintEvalRecord
from tests.generate.tiny_model import THINKING_TEMPLATE

MAX_TOKENS = 12

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


def tiny_config(model: Path | str, tmp_path: Path, chat_template_kwargs: dict[str, Any] | None = None,
                **vllm: Any) -> VLLMGeneration:
    return VLLMGeneration(
        n=2,
        sampling={"temperature": 1.0, "max_tokens": MAX_TOKENS, "seed": 3},
        chat_template_kwargs=chat_template_kwargs or {},
        vllm={
            "model": str(model),
            "cpu_only": True,
            "cache_dir": str(tmp_path / "vllm-cache"),
            "engine_kwargs": {"max_model_len": 4096},
            "batch_size": 8,
            **vllm,
        },
    )


def run(backend: Any, rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """``rows`` through ``backend``'s stage inside its engines' reservation, by row id."""
    import ray.data

    with backend.engines():
        return {r["row_id"]: r for r in backend.stage().apply(ray.data.from_items(rows)).take_all()}


BASE_RUN_SAMPLES = 3


@pytest.fixture(scope="session")
def base_run(tiny_hub_env: dict[str, str], local_ray: None,
             tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """The tiny model by its hub id (from an offline Hugging Face cache, as a node that downloaded it) with
    no max_model_len: two draws of three samples, a broken row, and a prompt longer than the context
    the model's config names. The chat template closes an empty think block (enable_thinking false)."""
    from linteval_ray.generate.vllm import VLLMBackend
    from tests.fixtures.tiny_model import TINY_HUB_ID

    rows = prompt_rows(bundled_records()[:BASE_RUN_SAMPLES], n=2)
    rows.append({**rows[0], "row_id": "broken/0", "sample_id": "broken", "record_json": "{not json"})
    huge = bundled_records()[0].model_copy(update={"sample_id": "huge", "code": "int x;\n" * 6000})
    rows.append({**rows[0], "row_id": "huge/0", "sample_id": "huge", "record_json": huge.model_dump_json()})
    # No max_model_len: the context comes from the model's config on the hub. A CPU engine without chunked
    # prefill needs a whole prompt per step, so its token budget is given instead.
    config = tiny_config(TINY_HUB_ID, tmp_path_factory.mktemp("base"), chat_template_kwargs={"enable_thinking": False},
                         chat_template=THINKING_TEMPLATE, env_vars=tiny_hub_env,
                         engine_kwargs={"max_num_batched_tokens": 4096})
    return run(VLLMBackend(config), rows)
