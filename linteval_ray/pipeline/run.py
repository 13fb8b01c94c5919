"""``linteval-ray run``: the driver of one evaluation.

The driver loads and validates the split (so every malformed row gets a named
error and a result row), skips rows already written by an earlier attempt of
the same run, streams the rest through Ray Data — a list of three stages,
generate (the backend's) → validate (CPU actor pool) → store (atomic shards),
checked against each other and applied in turn — and finishes with the
reduction and the report.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from pydantic import BaseModel, Field

from linteval_ray.config import RunConfig
from linteval_ray.errors import LintEvalError
from linteval_ray.generate.base import GenerationBackend
from linteval_ray.generate.registry import build_backend
from linteval_ray.load.loader import LoadResult
from linteval_ray.load.presets import resolve_source
from linteval_ray.pipeline.inputs import Inputs, load_inputs
from linteval_ray.pipeline.progress import Progress
from linteval_ray.pipeline.stage import Stage, check_chain
from linteval_ray.pipeline.stages import cache_counts, store_stage, validation_stage
from linteval_ray.reduce.reduce import Reduction, reduce_run
from linteval_ray.report.publish import publish
from linteval_ray.schema.rows import INPUT_COLUMNS
from linteval_ray.store import manifest as manifests
from linteval_ray.store.folder import RunFolder
from linteval_ray.store.shards import done_row_ids, write_rows
from linteval_ray.toolchain import Toolchain
from linteval_ray.toolchain.cluster import check_cluster_toolchain
from linteval_ray.validate.canary import out_of_service_workers
from linteval_ray.validate.lint.profiles import load_profile

if TYPE_CHECKING:
    import pyarrow as pa

log = logging.getLogger(__name__)


class RunMismatchError(LintEvalError):
    """The output folder holds another run (different data, model, prompt, limits or tools)."""


class RunOutcome(BaseModel):
    output: str
    resumed_rows: int
    new_rows: int
    reduction: Reduction
    generation_warnings: list[str] = Field(default_factory=list)


def default_run_name(config: RunConfig) -> str:
    source = re.sub(r"[^A-Za-z0-9]+", "-", Path(config.dataset.source).stem).strip("-") or "data"
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    return f"{source}-{config.generation.backend}-{stamp}"


def resolve_output(config: RunConfig) -> tuple[str, str]:
    run_name = config.run_name or default_run_name(config)
    output = config.output or str(Path("runs", run_name).resolve())
    if "://" not in output:
        output = str(Path(output).resolve())
    return run_name, output.rstrip("/")


def dataset_digest(records_json: list[str], errors: list[str]) -> str:
    digest = hashlib.sha256()
    for text in sorted(records_json) + sorted(errors):
        digest.update(text.encode())
        digest.update(b"\n")
    return digest.hexdigest()


def run(config: RunConfig) -> RunOutcome:
    """Evaluate the configured split into its run folder (resuming an earlier attempt)."""
    run_name, output = resolve_output(config)
    folder = RunFolder.open(output, config.storage)
    log.info("run %s: dataset %s -> %s", run_name, resolve_source(config.dataset.source), output)
    inputs = load_inputs(config)
    toolchain = Toolchain.discover()
    toolchain.manifest()  # probe the driver's tools now, before Ray's threads share this process
    generation = build_backend(config.generation, config.storage)
    _init_ray(config)
    # Before any manifest: a node without its tools fails the job now, with one error naming it.
    check_cluster_toolchain(config.validation.pool.resources or None)
    generation.preflight()  # engines that can never be placed, a server that does not answer: one line now
    manifest = _start_manifest(config, run_name, folder, inputs.loaded, toolchain, generation)
    manifest.warnings = generation.probe()
    for warning in manifest.warnings:
        log.warning("%s", warning)

    todo = _rows_to_do(config, folder, inputs)
    if todo:
        stages = [generation.stage(), validation_stage(config, folder, generation.prompt_version),
                  store_stage(config, folder)]
        _execute(stages, todo, config.validation.pool.batch_size, already_done=len(inputs.rows) - len(todo))

    reduction = reduce_run(folder, config.generation.health)
    publish(folder, reduction.results, reduction.metrics,
            records={r.sample_id: r for r in inputs.loaded.records}, title=f"LintEval results: {run_name}")
    _finish_manifest(folder, manifest, reduction)
    return RunOutcome(output=output, resumed_rows=len(inputs.rows) - len(todo), new_rows=len(todo),
                      reduction=reduction, generation_warnings=manifest.warnings)


def _rows_to_do(config: RunConfig, folder: RunFolder, inputs: Inputs) -> list[dict[str, Any]]:
    """The input rows no earlier attempt of this run wrote; the invalid-input rows not yet
    written are written now (they need no evaluation)."""
    done = done_row_ids(folder)
    write_rows(folder, [r for r in inputs.invalid if r.row_id not in done])
    todo = [r for r in inputs.rows if r["row_id"] not in done]
    log.info(
        "%d samples x %d draws = %d rows; %d already done, %d to evaluate, %d invalid input rows",
        len(inputs.loaded.records), config.generation.n, len(inputs.rows), len(inputs.rows) - len(todo),
        len(todo), len(inputs.invalid),
    )
    return todo


def _start_manifest(config: RunConfig, run_name: str, folder: RunFolder, loaded: LoadResult, toolchain: Toolchain,
                    generation: GenerationBackend) -> manifests.Manifest:
    """The run's manifest, written before any work; refuses a folder holding another run."""
    dataset_sha = dataset_digest([r.model_dump_json() for r in loaded.records], [str(e) for e in loaded.errors])
    profile = load_profile(config.validation.lint_profile)
    fingerprint = manifests.fingerprint(config, dataset_sha, toolchain.toolchain_id, profile.config_id)
    previous = manifests.read_manifest(folder)
    if previous is not None and previous.fingerprint != fingerprint:
        raise RunMismatchError(
            f"{folder.url} holds run {previous.run_name!r} with other data, model, prompt, limits or tools "
            f"(fingerprint {previous.fingerprint} != {fingerprint}); choose a new output folder"
        )
    manifest = manifests.Manifest(
        run_name=previous.run_name if previous else run_name,
        output=folder.url,
        config=manifests.redacted_config(config),
        fingerprint=fingerprint,
        dataset_url=loaded.source,
        dataset_sha256=dataset_sha,
        prompt_version=generation.prompt_version or "none (replay)",
        model=generation.model_name(),
        backend=config.generation.backend,
        toolchain=toolchain.manifest().model_dump(mode="json"),
        lint_profile=profile.summary(),
        versions=manifests.library_versions(),
        started_at=previous.started_at if previous else manifests.now(),
        attempts=previous.attempts + 1 if previous else 1,
    )
    manifests.write_manifest(folder, manifest)
    return manifest


def _finish_manifest(folder: RunFolder, manifest: manifests.Manifest, reduction: Reduction) -> None:
    manifest.finished_at = manifests.now()
    manifest.counts = {"rows": reduction.rows, "duplicates_dropped": reduction.duplicates,
                       **reduction.metrics.statuses}
    manifest.cache = cache_counts(folder)
    manifest.out_of_service = out_of_service_workers(reduction.results)
    manifests.write_manifest(folder, manifest)


def _init_ray(config: RunConfig) -> None:
    import ray

    if ray.is_initialized():
        return
    if config.ray.address or os.environ.get("RAY_ADDRESS"):
        ray.init(address=config.ray.address, log_to_driver=True)
        return
    # A local Ray: one logical CPU more than the cores, so that the light stages
    # (replay, shard writes) are never starved by a validation pool using every core.
    num_cpus = config.ray.num_cpus or (os.cpu_count() or 1) + 1
    ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=True)


def _execute(stages: list[Stage], todo: list[dict[str, Any]], batch_size: int, already_done: int) -> None:
    """Stream ``todo`` through the stages; the last one's summary rows drive the progress log."""
    import ray.data

    check_chain(stages, INPUT_COLUMNS)
    progress = Progress(total=len(todo), already_done=already_done)
    context = ray.data.DataContext.get_current()
    ray_bars = context.enable_progress_bars
    # On a terminal ours is the one live bar: a second writer redrawing the same lines garbles both.
    context.enable_progress_bars = ray_bars and not progress.live
    try:
        blocks = max(1, min(len(todo), len(todo) // max(1, batch_size)))
        ds: ray.data.Dataset = ray.data.from_items(todo, override_num_blocks=blocks)
        for stage in stages:
            ds = stage.apply(ds)
        with progress:
            for batch in ds.iter_batches(batch_format="pyarrow", batch_size=None):
                summary = cast("pa.Table", batch)  # batch_format="pyarrow"
                progress.update(summary.column("status").to_pylist(), summary.column("pass_at_1").to_pylist())
    finally:
        context.enable_progress_bars = ray_bars
