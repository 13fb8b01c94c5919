"""Per-stage CPU inside validation actors: a Ray ``worker_process_setup_hook``.

``install`` runs in every Ray worker process at start (the benchmark passes it in
``ray.init(runtime_env=...)``). It wraps, in that process only, the engine steps with
CPU meters: linting (per language), compiling (``compile_program``: the testlib tools,
originals and revisions, PCH builds included) and judging (tests = judging - compiling).
After each batch the actor writes its totals and its peak RSS to
``$BENCH_STAGE_DIR/<pid>.json``. Nothing is mocked: the real steps run inside the meters.
"""

from __future__ import annotations

import functools
import json
import os
import resource
from pathlib import Path

from bench.cpu import StageMeter, peak_rss_mb, tree_cpu_s

STAGE_DIR_ENV = "BENCH_STAGE_DIR"


def install() -> None:
    if not os.environ.get(STAGE_DIR_ENV):
        return
    from linteval_ray.validate import engine
    from linteval_ray.validate.judge import compile as compile_module
    from linteval_ray.validate.judge import run as run_module
    from linteval_ray.validate.lint.registry import Linters

    meter = StageMeter()
    current: dict[str, str] = {"language": "?"}  # the row being judged (judging is per row)
    samples = {"count": 0}

    lint_each = Linters.lint_each

    def metered_lint_each(self, language, codes):
        with meter.measure("lint", language):
            return lint_each(self, language, codes)

    compile_program = compile_module.compile_program

    @functools.wraps(compile_program)
    def metered_compile(*args, **kwargs):
        with meter.measure("compile", current["language"]):
            return compile_program(*args, **kwargs)

    judge = engine.Validator._judge

    def metered_judge(self, work):
        current["language"] = work.record.language
        with meter.measure("judge", work.record.language):
            return judge(self, work)

    evaluate_batch = engine.Validator.evaluate_batch

    def reporting_evaluate_batch(self, rows):
        results = evaluate_batch(self, rows)
        samples["count"] += len(rows)
        _dump(meter, samples["count"])
        return results

    Linters.lint_each = metered_lint_each
    compile_module.compile_program = metered_compile
    run_module.compile_program = metered_compile
    engine.Validator._judge = metered_judge
    engine.Validator.evaluate_batch = reporting_evaluate_batch


def _dump(meter: StageMeter, samples: int) -> None:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    stages = meter.as_dict()
    judge = stages.pop("judge", {})
    compiled = stages.get("compile", {})
    stages["tests"] = {lang: cpu - compiled.get(lang, 0.0) for lang, cpu in judge.items()}
    report = {"pid": os.getpid(), "samples": samples, "stages": stages, "tree_cpu_s": tree_cpu_s(),
              "peak_rss_mb": peak_rss_mb(),
              "children_peak_rss_mb": children.ru_maxrss / 1024}
    path = Path(os.environ[STAGE_DIR_ENV]) / f"{os.getpid()}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(report))
    tmp.replace(path)
