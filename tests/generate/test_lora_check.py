"""The adapter check that runs on each engine's node before any engine starts (``adapter_problem``),
on adapters written as fine-tuning libraries write them (safetensors, PEFT's adapter_config.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from linteval_ray.generate.lora_probe import adapter_problem
from tests.generate.tiny_model import LORA_RANK, build_lora_adapter

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32"])
def test_an_adapter_of_each_dtype_fine_tuning_saves_passes(tmp_path: Path, dtype: str) -> None:
    adapter = build_lora_adapter(tmp_path / dtype, tmp_path, dtype=dtype)
    assert adapter_problem(str(adapter), max_rank=16) == ""


def test_a_truncated_weights_file_and_a_rank_above_the_engine_s_are_named(tmp_path: Path) -> None:
    adapter = build_lora_adapter(tmp_path / "adapter", tmp_path, dtype="bfloat16")
    weights = adapter / "adapter_model.safetensors"
    weights.write_bytes(weights.read_bytes()[:-100])  # an upload cut short: the header is whole
    assert adapter_problem(str(adapter), max_rank=16) == (
        "adapter_model.safetensors does not load (SafetensorError: Error while deserializing header: incomplete "
        "metadata, file not fully covered)")
    config = json.loads((adapter / "adapter_config.json").read_text())
    (adapter / "adapter_config.json").write_text(json.dumps({**config, "r": 300}))
    assert adapter_problem(str(adapter), max_rank=LORA_RANK) == (
        f"its rank 300 exceeds max_lora_rank {LORA_RANK} (set engine_kwargs.max_lora_rank to 320)")
