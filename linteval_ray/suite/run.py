"""``linteval-ray suite``: the driver of a test-suite quality run.

1. Before any work: the test sources' tasks and the pools' formats (footers, first lines), the
   identities of their files (what their stores state), the fingerprint, the manifest (a folder
   holding another run is refused), Python 2.7 where Python 2 solutions need it.
2. Ray up; the problem index built from the test sources (``index.py``: their tests stored once in
   the content cache, the index written by the read tasks).
3. The pools streamed as units (``source.py``: one read task per file, joined, cut, resumed from
   each file's own shard folder) to the validation pool's actors (``judge.py``), each unit judged and
   written as its shard; the driver receives one summary row per unit, for the progress line.
4. The reduction (``reduce.py``): metrics.json, report.md, the verifier cards.

The driver holds settings, file lists, counts and per-problem tallies: nothing per solution.
"""

from __future__ import annotations

import logging
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from pydantic import BaseModel

from linteval_ray.config import RunConfig, TaskConfig
from linteval_ray.config.section import public_settings, without_credentials
from linteval_ray.errors import LintEvalError
from linteval_ray.languages.registry import UnknownLanguageError, language
from linteval_ray.load.identity import stated_identity
from linteval_ray.load.split import split_columns, split_files
from linteval_ray.pipeline.actor_records import cache_counts
from linteval_ray.pipeline.progress import Progress
from linteval_ray.pipeline.run import check_shared_tier, init_ray
from linteval_ray.pipeline.validation import actor_pool_size, pool_autoscaling, shared_cache_validation
from linteval_ray.stage import BatchStage
from linteval_ray.store import manifest as run_manifests
from linteval_ray.store.folder import RunFolder
from linteval_ray.store.fs import ObjectStore
from linteval_ray.suite.config import SuiteConfig
from linteval_ray.suite.index import TestSource, build_index, resolve_test_sources
from linteval_ray.suite.judge import SUMMARY_SCHEMA, JudgeUnits
from linteval_ray.suite.manifest import SourceRecord, SuiteManifest, start_manifest, suite_fingerprint, write_manifest
from linteval_ray.suite.pools import pool_format
from linteval_ray.suite.presets import BUNDLED_POOLS, expanded
from linteval_ray.suite.reduce import SuiteReduction, reduce_suite
from linteval_ray.suite.source import PoolFile, pool_files, read_units
from linteval_ray.toolchain import Toolchain, ToolchainError

if TYPE_CHECKING:
    import pyarrow as pa

log = logging.getLogger(__name__)

PYTHON2 = "py2"
PYTHON2_TOOL = "python2"
LIMIT_COLUMN = "time_limit"


class SuiteOutcome(BaseModel):
    output: str
    reduction: SuiteReduction
    judged_now: int


def resolve_output(config: SuiteConfig) -> tuple[str, str]:
    run_name = config.run_name or f"suite-{datetime.now(UTC).strftime('%Y%m%d-%H%M%S')}"
    output = config.output or str(Path("runs", re.sub(r"[^A-Za-z0-9._-]+", "-", run_name)).resolve())
    if "://" not in output:
        output = str(Path(output).resolve())
    return run_name, output.rstrip("/")


def run_suite(config: SuiteConfig) -> SuiteOutcome:
    """Judge every pool solution on its problem's tests into the run folder (resuming an earlier attempt)."""
    run_name, output = resolve_output(config)
    folder = RunFolder.open(output, config.storage)
    store = folder.store
    files = pool_files(config, store)
    sources = resolve_test_sources(config, store, pool_limits=stated_limits(config, store))
    toolchain = Toolchain.discover()
    check_python2(config, toolchain)
    tests = [SourceRecord(url=without_credentials(s.url), task=s.task,
                          identity=stated_identity(split_files(s.url, store), store).model_dump()) for s in sources]
    pools = [SourceRecord(url=without_credentials(f.url), format=f.format,
                          identity=stated_identity([f.url], store).model_dump()) for f in files]
    manifest = start_manifest(folder, SuiteManifest(
        run_name=run_name, output=without_credentials(output), config=public_settings(config),
        fingerprint=suite_fingerprint(config, tests, pools, toolchain.toolchain_id), tests=tests, pools=pools,
        judging={"stop_at_first_failure": config.suite.stop_at_first_failure, "python2": config.suite.python2,
                 "python2_also_as_python3": config.suite.python2_also_as_python3,
                 "cpp_dialects": config.suite.cpp_dialects,
                 "tasks": {s.url: {"task": s.task, "options": s.options} for s in sources}},
        toolchain=toolchain.manifest().model_dump(mode="json"), versions=run_manifests.library_versions(),
        started_at=run_manifests.now()))
    log.info("suite %s: %d test source(s), %d pool file(s) -> %s", manifest.run_name, len(sources), len(files),
             output)
    shell = _run_config(config, sources)
    init_ray(shell)
    check_shared_tier(shell, folder)
    indexed = build_index(config, folder, sources, manifest.attempts)
    log.info("problem index: %d records", indexed)
    judged_now = _judge(config, folder, files, shell)
    title = f"Test-suite quality: {manifest.run_name}"
    reduction = reduce_suite(folder, stop_at_first_failure=config.suite.stop_at_first_failure, title=title)
    manifest.finished_at = run_manifests.now()
    manifest.counts = dict(reduction.metrics.statuses)
    manifest.cache = cache_counts(folder)
    write_manifest(folder, manifest)
    return SuiteOutcome(output=output, reduction=reduction, judged_now=judged_now)


def stated_limits(config: SuiteConfig, store: ObjectStore) -> str | None:
    """The first deepmind/code_contests pool whose rows state their problem's time limit (its first file's
    columns): the limits a test source without its own takes (``index.resolve_test_sources``)."""
    for pool in expanded(config.pools, BUNDLED_POOLS):
        columns = split_columns(pool, store)
        if pool_format(pool, columns) == "deepmind" and LIMIT_COLUMN in columns:
            return pool
    return None


def check_python2(config: SuiteConfig, toolchain: Toolchain) -> None:
    """Python 2 solutions judged as Python 2 need Python 2.7 here: say how to get it, or how to do without."""
    if config.suite.python2 != "python2" or (config.languages is not None and PYTHON2 not in config.languages):
        return
    try:
        language(PYTHON2)
        toolchain.path(PYTHON2_TOOL)
    except (UnknownLanguageError, ToolchainError):
        raise LintEvalError("Python 2 solutions are judged as Python 2.7 (suite.python2: python2), which this "
                            "machine lacks: run `linteval-ray toolchain install` (it installs Python 2.7 where the "
                            "platform allows), or give --python2 python3 to run them on Python 3 as the published "
                            "harness did") from None


def _run_config(config: SuiteConfig, sources: list[TestSource]) -> RunConfig:
    """The settings the shared pipeline helpers read (Ray, the validation pool, the shared cache tier)."""
    return RunConfig(task=TaskConfig(name=sources[0].task, options=sources[0].options), storage=config.storage,
                     validation=config.validation, ray=config.ray)


def _judge(config: SuiteConfig, folder: RunFolder, files: list[PoolFile], shell: RunConfig) -> int:
    """Stream the units through the validation pool; the solutions judged now."""
    import ray.data
    from ray.data import ActorPoolStrategy

    pool = config.validation.pool
    low, high = actor_pool_size(shell)
    kwargs: dict[str, Any] = {
        # One unit a call, one call in flight per actor: a unit takes minutes.
        "compute": ActorPoolStrategy(min_size=low, max_size=high, max_tasks_in_flight_per_actor=1),
        "batch_size": 1, "batch_format": "pyarrow", "num_cpus": pool.num_cpus}
    if pool.resources:
        kwargs["resources"] = pool.resources
    stage = BatchStage(name="judge", fn=JudgeUnits, map_batches_kwargs=kwargs, required_columns=("payload",),
                       fn_constructor_kwargs={"validation": shared_cache_validation(config.validation, folder),
                                              "folder": folder, "settings": config.suite},
                       output_schema=SUMMARY_SCHEMA)
    judged = stage.apply(read_units(config, folder, files))
    judged.context.autoscaling_config = pool_autoscaling()
    progress = Progress(total=None)
    context = ray.data.DataContext.get_current()
    ray_bars = context.enable_progress_bars
    context.enable_progress_bars = ray_bars and not progress.live
    try:
        with progress:
            for batch in judged.iter_batches(batch_format="pyarrow", batch_size=None):
                summary = cast("pa.Table", batch)
                for statuses, accepted in zip(summary.column("statuses").to_pylist(),
                                              summary.column("accepted").to_pylist(), strict=True):
                    progress.update(statuses, accepted)
    finally:
        context.enable_progress_bars = ray_bars
    return progress.done
