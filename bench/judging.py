"""What the judging benchmarks share: the bundled samples, and a judge context on this node."""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from bench.naive import reference_revision
from linteval_ray.schema.bundled import bundled_path
from linteval_ray.schema.record import LintEvalRecord
from linteval_ray.toolchain import Toolchain
from linteval_ray.validate.cache import ContentCache, default_cache_dir
from linteval_ray.validate.judge import CompileOutcome, JudgeContext, compile_program
from linteval_ray.validate.sandbox import make_sandbox


def bundled_samples(only: list[str] | None, languages: tuple[str, ...] = ("cpp", "py3", "java")
                    ) -> list[LintEvalRecord]:
    """The bundled records of ``languages`` (only the ``only`` sample ids, when given)."""
    records = [LintEvalRecord.model_validate_json(line) for line in bundled_path().read_text().splitlines()]
    return [r for r in records if r.language in languages and (not only or r.sample_id in only)]


def judge_context(prefix: str) -> JudgeContext:
    """One thread (as an actor with ``num_cpus: 1``), the node's content cache, a bwrap sandbox
    (the caller closes ``ctx.sandbox``) and a fresh scratch folder."""
    toolchain = Toolchain.discover()
    return JudgeContext(sandbox=make_sandbox("bwrap", toolchain=toolchain), toolchain=toolchain,
                        cache=ContentCache(None, default_cache_dir() / "cache"),
                        scratch=Path(tempfile.mkdtemp(prefix=prefix)), jobs=1)


def repeat_and_samples(description: str, which: str) -> argparse.Namespace:
    """``--repeat`` and ``--sample`` of a benchmark over ``which`` bundled samples by default."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sample", action="append", help=f"a sample id (default: every bundled {which}sample)")
    return parser.parse_args()


def compile_reference(record: LintEvalRecord, ctx: JudgeContext) -> CompileOutcome:
    """The sample's reference revision, compiled into a fresh folder of ``ctx.scratch``."""
    return compile_program(record.language, reference_revision(record) or "", ctx,
                           Path(tempfile.mkdtemp(dir=ctx.scratch)) / "prog")


def mean_by_language(totals: dict[str, dict[str, list[float]]]) -> dict[str, dict[str, float]]:
    """Per mode: the mean of its per-sample figures over every sample, and per language."""
    return {mode: {"all": round(statistics.mean([v for vs in by.values() for v in vs]), 3),
                   **{lang: round(statistics.mean(vs), 3) for lang, vs in sorted(by.items())}}
            for mode, by in totals.items()}
