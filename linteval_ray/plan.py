"""``linteval-ray plan``: size a cluster for a split from measured figures.

Two pools run at once: GPUs generate revisions, CPU cores validate them (lint,
compile, run the testlib tests). The run goes as fast as the slower pool, so the
useful ratio is how many CPU cores keep one GPU's output validated:

    cores per GPU = generation rate per GPU (samples/s) x validation CPU-seconds per sample
                    / core utilisation

and the wall time is samples x draws / min(generation rate, validation rate) + start-up.

Figures come from ``bench/figures.json`` (written by the benchmark) when present; any
figure it lacks falls back to ``default_figures()`` below, whose ``sources`` say where
each number comes from (measured here, or an assumption).
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import sys
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from linteval_ray.errors import LintEvalError
from linteval_ray.languages.registry import language_names, languages
from linteval_ray.schema.record import Language
from linteval_ray.suite.plan import describe as describe_suite
from linteval_ray.suite.plan import plan_suite

DEFAULT_FIGURES_FILE = Path("bench/figures.json")


class Figures(BaseModel):
    """Per-sample costs and rates that the projection multiplies out."""

    model_config = ConfigDict(extra="forbid")

    validation_cpu_s: dict[Language, float] = Field(
        description="CPU-seconds to validate one sample (lint + compile + tests), problem tools cached")
    problem_setup_cpu_s: float = Field(
        ge=0,
        description="CPU-seconds per problem once: compile generator/validator/checker, make tests, run the original")
    samples_per_problem: float = Field(gt=0, description="samples sharing one problem's setup (shared cache_url)")
    language_mix: dict[Language, float] = Field(description="share of samples per language (normalised)")
    generation_samples_per_gpu_s: float = Field(gt=0, description="revisions generated per second per GPU")
    core_utilisation: float = Field(
        gt=0, le=1, description="share of a reserved core doing validation work (batch gaps, I/O, Ray overhead)")
    startup_s: float = Field(ge=0, description="fixed cost: job start, engine/model load, reduction")
    sources: dict[str, str] = Field(default_factory=dict, description="figure -> where the number comes from")

    def cpu_s_per_sample(self) -> float:
        """Mix-weighted validation CPU-seconds of one sample, problem setup amortised."""
        names = language_names()
        total = sum(self.language_mix.get(lang, 0.0) for lang in names)
        if total <= 0:
            raise ValueError("language_mix has no positive share")
        per_sample = sum(self.language_mix.get(lang, 0.0) / total * self.validation_cpu_s[lang] for lang in names
                         if self.language_mix.get(lang, 0.0) > 0)
        return per_sample + self.problem_setup_cpu_s / self.samples_per_problem


@functools.cache
def default_figures() -> Figures:
    """The figures measured or assumed here; where each comes from is part of the data
    (`linteval-ray plan` prints it). Each language's come from its spec (``PlanFigures``)."""
    return Figures(
        validation_cpu_s={spec.name: spec.plan.validation_cpu_s for spec in languages() if spec.plan},
        problem_setup_cpu_s=20.0,
        samples_per_problem=13061 / 3999,
        language_mix={spec.name: spec.plan.lite_samples for spec in languages() if spec.plan},
        generation_samples_per_gpu_s=1.0,
        core_utilisation=0.85,
        startup_s=300.0,
        sources={
            "validation_cpu_s": "measured 2026-11-30: `linteval-ray validate` on bundled problems lr08-lr10 (tools "
            "cached, revisions new), CPU-seconds of the whole process tree minus ~1-2.5 s start-up: "
            + ", ".join(spec.plan.measured for spec in languages() if spec.plan)
            + "; 2-core VM at load 10-20, so +-50 %",
            "problem_setup_cpu_s": "measured: same problems, cold cache minus all-cached rerun, 60.3 CPU-s / 3 "
            "problems (compile generator, validator, checker; generate tests; run the original)",
            "samples_per_problem": "dataset card: full split, 13,061 samples over 3,999 problems",
            "language_mix": "dataset card: lite split ("
            + ", ".join(f"{spec.display_name} {spec.plan.lite_samples}" for spec in languages() if spec.plan)
            + "); assumed for full",
            "generation_samples_per_gpu_s": "ASSUMPTION, not measured (no GPU here): ~1,500 output tokens per "
            "revision at ~1,500 tokens/s per GPU for a 7-8B model in vLLM with batching",
            "core_utilisation": "ASSUMPTION: actors idle between batches and while shards are written",
            "startup_s": "ASSUMPTION: job start + vLLM model load + reduction (image already on the nodes)",
        },
    )


def load_figures(path: Path | None = None) -> Figures:
    """Defaults overlaid with the figures in ``path`` (default ``bench/figures.json`` if present)."""
    if path is None:
        if not DEFAULT_FIGURES_FILE.is_file():
            return default_figures()
        path = DEFAULT_FIGURES_FILE
    measured = json.loads(path.read_text())
    sources = {**default_figures().sources, **{k: f"{path}" for k in measured if k != "sources"},
               **measured.get("sources", {})}
    merged = {**default_figures().model_dump(), **measured, "sources": sources}
    return Figures.model_validate(merged)


class Projection(BaseModel):
    samples: int
    draws: int
    gpus: int
    cpus: float
    cpu_s_per_sample: float = Field(description="validation CPU-seconds per sample, setup amortised")
    generation_rate: float | None = Field(description="samples/s all GPUs generate; None: no GPU stage (replay)")
    validation_rate: float = Field(description="samples/s all CPU cores validate")
    throughput: float = Field(description="samples/s of the whole run (the slower pool)")
    bottleneck: Literal["generation", "validation"]
    cpus_per_gpu: float = Field(description="CPU cores that keep one GPU's output validated")
    gpu_busy: float | None = Field(description="share of time the GPUs work")
    cpu_busy: float = Field(description="share of time the validation cores work")
    wall_s: float = Field(description="projected wall time of the run")
    figures: Figures


def plan(samples: int, gpus: int, cpus: float, figures: Figures | None = None, draws: int = 1) -> Projection:
    """Project a run of ``samples`` x ``draws`` revisions on ``gpus`` GPUs and ``cpus`` validation cores."""
    if samples < 1 or draws < 1 or gpus < 0 or cpus <= 0:
        raise ValueError("need samples >= 1, draws >= 1, gpus >= 0 and cpus > 0")
    fig = figures or default_figures()
    cpu_s = fig.cpu_s_per_sample()
    validation_rate = cpus * fig.core_utilisation / cpu_s
    generation_rate = gpus * fig.generation_samples_per_gpu_s if gpus else None
    throughput = validation_rate if generation_rate is None else min(generation_rate, validation_rate)
    return Projection(
        samples=samples, draws=draws, gpus=gpus, cpus=cpus, cpu_s_per_sample=cpu_s,
        generation_rate=generation_rate, validation_rate=validation_rate, throughput=throughput,
        bottleneck="validation" if generation_rate is None or validation_rate < generation_rate else "generation",
        cpus_per_gpu=fig.generation_samples_per_gpu_s * cpu_s / fig.core_utilisation,
        gpu_busy=None if generation_rate is None else throughput / generation_rate,
        cpu_busy=throughput / validation_rate,
        wall_s=fig.startup_s + samples * draws / throughput,
        figures=fig,
    )


def describe(p: Projection) -> str:
    gen = "none (replay)" if p.generation_rate is None else f"{p.generation_rate:.2f} samples/s ({p.gpu_busy:.0%} busy)"
    lines = [
        f"{p.samples} samples x {p.draws} draws on {p.gpus} GPUs + {p.cpus:g} validation cores",
        f"  validation cost     {p.cpu_s_per_sample:.1f} CPU-s per sample (problem setup amortised)",
        f"  generation          {gen}",
        f"  validation          {p.validation_rate:.2f} samples/s ({p.cpu_busy:.0%} busy)",
        f"  bottleneck          {p.bottleneck}",
        f"  balanced ratio      {p.cpus_per_gpu:.1f} CPU cores per GPU{_actual_ratio(p)}",
        f"  projected wall time {_duration(p.wall_s)}",
        "figures:",
        *(f"  {name}: {source}" for name, source in p.figures.sources.items()),
    ]
    return "\n".join(lines)


def _actual_ratio(p: Projection) -> str:
    return f" (this plan: {p.cpus / p.gpus:.1f})" if p.gpus else ""


def _duration(seconds: float) -> str:
    minutes = math.ceil(seconds / 60)
    return f"{minutes // 60}h{minutes % 60:02d}m" if minutes >= 60 else f"{minutes}m"


def plan_command(args: argparse.Namespace) -> int:
    if args.suite_solutions is not None:
        return _suite_command(args)
    missing = [flag for flag, value in (("--samples", args.samples), ("--gpus", args.gpus), ("--cpus", args.cpus))
               if value is None]
    if missing:
        raise LintEvalError(f"plan needs {', '.join(missing)} (or --suite-solutions for a test-suite run)")
    projection = plan(args.samples, args.gpus, args.cpus, load_figures(args.figures), draws=args.draws)
    if args.json:
        sys.stdout.write(projection.model_dump_json(indent=2) + "\n")
    else:
        sys.stdout.write(describe(projection) + "\n")
    return 0


def _suite_command(args: argparse.Namespace) -> int:
    if (args.nodes is None) == (args.wall_hours is None):
        raise LintEvalError("plan --suite-solutions needs one of --nodes or --wall-hours")
    projection = plan_suite(args.suite_solutions, args.problems, args.cpus_per_node, nodes=args.nodes,
                            wall_hours=args.wall_hours)
    sys.stdout.write((projection.model_dump_json(indent=2) if args.json else describe_suite(projection)) + "\n")
    return 0


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Add ``plan``; sets ``args.func`` (returns an exit code)."""
    parser = subparsers.add_parser(
        "plan", help="project wall time and the CPU-per-GPU ratio for a split",
        description="Project a run from measured figures: how many CPU cores per GPU keep both pools busy, "
        "and the wall time of the split. Figures: --figures, else bench/figures.json, else built-in defaults.")
    parser.add_argument("--samples", type=int, help="samples in the split (full: 13061, lite: 498)")
    parser.add_argument("--gpus", type=int, help="GPUs generating (0: replay, no generation)")
    parser.add_argument("--cpus", type=float, help="CPU cores for validation actors")
    parser.add_argument("--draws", type=int, default=1, help="generations per sample (generation.n)")
    parser.add_argument("--figures", type=Path, help="figures JSON (default bench/figures.json if present)")
    parser.add_argument("--json", action="store_true", help="machine-readable projection")
    suite = parser.add_argument_group("a test-suite quality run (linteval-ray suite; docs/suite.md)")
    suite.add_argument("--suite-solutions", type=int, metavar="N",
                       help="solutions judged (CodeContests-O's: 11000000); sizes a suite run instead")
    suite.add_argument("--problems", type=int, default=11682, help="problems (CodeContests-O: 11682)")
    suite.add_argument("--cpus-per-node", type=int, default=64, help="cores per node")
    suite.add_argument("--nodes", type=int, help="nodes: gives the wall time")
    suite.add_argument("--wall-hours", type=float, help="the wall time to finish in: gives the nodes")
    parser.set_defaults(func=plan_command)
    return parser
