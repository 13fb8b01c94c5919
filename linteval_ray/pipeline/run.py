"""``linteval-ray run``: the driver of one evaluation.

The driver loads and validates the split (so every malformed row gets a named
error and a result row), skips rows already written by an earlier attempt of
the same run, streams the rest through Ray Data — generate → validate (CPU actor
pool) → store (atomic shards) — and finishes with the reduction and the report.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel

from linteval_ray.config import RunConfig
from linteval_ray.errors import LintEvalError
from linteval_ray.generate.registry import build_stage
from linteval_ray.load.loader import load_split
from linteval_ray.load.presets import resolve_source
from linteval_ray.pipeline.inputs import input_rows, invalid_input_rows
from linteval_ray.pipeline.progress import Progress
from linteval_ray.reduce.reduce import Reduction, reduce_run
from linteval_ray.store import manifest as manifests
from linteval_ray.store.shards import done_row_ids, write_rows
from linteval_ray.toolchain import Toolchain
from linteval_ray.validate.lint.profiles import load_profile

log = logging.getLogger(__name__)


class RunMismatchError(LintEvalError):
    """The output folder holds another run (different data, model, prompt, limits or tools)."""


class RunOutcome(BaseModel):
    output: str
    resumed_rows: int
    new_rows: int
    reduction: Reduction


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
    run_name, output = resolve_output(config)
    source = resolve_source(config.dataset.source)
    log.info("run %s: dataset %s -> %s", run_name, source, output)

    loaded = load_split(source, config.dataset, config.storage)
    for error in loaded.errors:
        log.warning("input row skipped: %s", error)
    rows = input_rows(loaded.records, config.generation.n)
    invalid = invalid_input_rows(loaded.errors, config.generation.n, {r.sample_id for r in loaded.records})

    toolchain = Toolchain.discover()
    stage = build_stage(config.generation, config.storage)
    manifest = _start_manifest(config, run_name, output, source, loaded, toolchain, stage)

    _init_ray(config)
    done = done_row_ids(output, config.storage)
    write_rows(output, [r for r in invalid if r.row_id not in done], config.storage)
    todo = [r for r in rows if r["row_id"] not in done]
    log.info(
        "%d samples x %d draws = %d rows; %d already done, %d to evaluate, %d invalid input rows",
        len(loaded.records), config.generation.n, len(rows), len(rows) - len(todo), len(todo), len(invalid),
    )
    if todo:
        _execute(config, output, stage, todo, already_done=len(rows) - len(todo))

    reduction = reduce_run(output, config.storage)
    manifest.finished_at = manifests.now()
    manifest.counts = {"rows": reduction.rows, "duplicates_dropped": reduction.duplicates,
                       **reduction.metrics.statuses}
    manifests.write_manifest(manifest, config.storage)
    return RunOutcome(output=output, resumed_rows=len(rows) - len(todo), new_rows=len(todo),
                      reduction=reduction)


def _start_manifest(config, run_name, output, source, loaded, toolchain, stage) -> manifests.Manifest:
    dataset_sha = dataset_digest([r.model_dump_json() for r in loaded.records], [str(e) for e in loaded.errors])
    profile = load_profile(config.validation.lint_profile)
    fingerprint = manifests.fingerprint(config, dataset_sha, toolchain.toolchain_id, profile.config_id)
    previous = manifests.read_manifest(output, config.storage)
    if previous is not None and previous.fingerprint != fingerprint:
        raise RunMismatchError(
            f"{output} holds run {previous.run_name!r} with other data, model, prompt, limits or tools "
            f"(fingerprint {previous.fingerprint} != {fingerprint}); choose a new output folder"
        )
    manifest = manifests.Manifest(
        run_name=previous.run_name if previous else run_name,
        output=output,
        config=manifests.redacted_config(config),
        fingerprint=fingerprint,
        dataset_url=source,
        dataset_sha256=dataset_sha,
        prompt_version=_prompt_version(stage) or "none (replay)",
        model=stage.model_name(),
        backend=config.generation.backend,
        toolchain=toolchain.manifest().model_dump(mode="json"),
        lint_profile=profile.summary(),
        versions=manifests.library_versions(),
        started_at=previous.started_at if previous else manifests.now(),
        attempts=previous.attempts + 1 if previous else 1,
    )
    manifests.write_manifest(manifest, config.storage)
    return manifest


def _prompt_version(stage) -> str | None:
    """``v1@<digest>`` for backends that prompt a model; replay used no prompt of ours."""
    return getattr(stage, "prompt_version_id", None)


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


def _pool_size(config: RunConfig) -> tuple[int, int]:
    import ray

    pool = config.validation.pool
    if pool.max_actors is not None:
        return pool.min_actors, max(pool.min_actors, pool.max_actors)
    cpus = ray.cluster_resources().get("CPU", 1.0)
    most = max(1, int((cpus - 0.5) // pool.num_cpus))
    return min(pool.min_actors, most), most


def _execute(config: RunConfig, output: str, stage, todo: list[dict], already_done: int) -> None:
    import ray.data
    from ray.data import ActorPoolStrategy

    from linteval_ray.pipeline.stages import ValidateBatch, store_batch

    pool = config.validation.pool
    min_actors, max_actors = _pool_size(config)
    blocks = max(1, min(len(todo), len(todo) // max(1, pool.batch_size)))
    ds = ray.data.from_items(todo, override_num_blocks=blocks)
    ds = stage.apply(ds)
    ds = ds.map_batches(
        ValidateBatch,
        fn_constructor_kwargs={
            "validation": config.validation,
            "storage": config.storage,
            "prompt_version": _prompt_version(stage),
        },
        compute=ActorPoolStrategy(min_size=min_actors, max_size=max_actors),
        batch_size=pool.batch_size,
        batch_format="pyarrow",
        num_cpus=pool.num_cpus,
        # Ray Data restarts a dead actor and retries its batch (max_restarts / max_task_retries
        # default to -1 for actor pools): a killed worker delays rows, it never loses them.
        resources=pool.resources or None,
    )
    ds = ds.map_batches(
        store_batch,
        fn_kwargs={"output": output, "storage": config.storage},
        batch_size=config.validation.pool.store_batch_size,
        batch_format="pyarrow",
        num_cpus=0.1,
    )
    progress = Progress(total=len(todo), already_done=already_done)
    for batch in ds.iter_batches(batch_format="pyarrow", batch_size=None):
        progress.update(batch.column("status").to_pylist(), batch.column("pass_at_1").to_pylist())
    log.info(progress.line())
