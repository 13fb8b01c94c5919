"""``linteval-ray run``: the driver of one evaluation.

The driver hashes the split's bytes (streamed, while Ray starts) for the run's fingerprint, lists
the row ids earlier attempts of the same run wrote, and streams the split through
Ray Data: read and checked row by row where it is read (a malformed row becomes
its named ``invalid_input`` result row), done rows dropped (``pipeline/source.py``),
then the stages admit → batches → generate (the backend's) → validate (CPU actor pool) →
store (atomic shards), checked against each other and applied in turn: admit and batches
in the read's task, the light ones around validation in the validation actor
(``pipeline_stages``). The driver holds ids and counts, never
record bodies. It finishes with the reduction
and the report.
"""

from __future__ import annotations

import logging
import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from pydantic import BaseModel, Field

from linteval_ray.config import RunConfig
from linteval_ray.config.section import without_credentials
from linteval_ray.errors import LintEvalError
from linteval_ray.generate.base import GenerationBackend
from linteval_ray.generate.registry import build_backend
from linteval_ray.languages.registry import PLUGINS_ENV, language_names, language_sources
from linteval_ray.load.presets import resolve_source
from linteval_ray.load.readers import SourceDigest
from linteval_ray.pipeline.actor_records import audit_counts, cache_counts, out_of_service_reports
from linteval_ray.pipeline.dataset import identity_in_background, resolved, run_task, task_fingerprint
from linteval_ray.pipeline.progress import Progress, without_ray_progress
from linteval_ray.pipeline.validation import pool_autoscaling, shared_cache_validation
from linteval_ray.pipeline.wiring import pipeline_stages
from linteval_ray.reduce.reduce import Reduction, reduce_run
from linteval_ray.report.publish import publish
from linteval_ray.schema.task import LINTEVAL_TASK
from linteval_ray.stage import Stage, check_chain
from linteval_ray.store import manifest as manifests
from linteval_ray.store.folder import RunFolder
from linteval_ray.store.shards import done_row_ids
from linteval_ray.tasks.registry import PLUGINS_ENV as TASK_PLUGINS_ENV
from linteval_ray.toolchain import Toolchain
from linteval_ray.toolchain.cluster import check_cluster_toolchain
from linteval_ray.validate.canary import out_of_service_workers
from linteval_ray.validate.lint.profiles import load_profile

if TYPE_CHECKING:
    import pyarrow as pa
    import ray
    import ray.data

log = logging.getLogger(__name__)


class RunMismatchError(LintEvalError):
    """The output folder holds another run (different data, model, prompt, sampling, limits or tools)."""


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


def run(config: RunConfig) -> RunOutcome:
    """Evaluate the configured split into its run folder (resuming an earlier attempt)."""
    config = resolved(config)  # the task: from the setting, the preset or the split's columns
    run_name, output = resolve_output(config)
    folder = RunFolder.open(output, config.storage)
    url = resolve_source(config.dataset.source)
    log.info("run %s: %s dataset %s -> %s", run_name, config.task.name, url, output)
    # Identified while Ray starts (a missing source fails now, a corrupt one before any work).
    hashing = identity_in_background(config, url)
    toolchain = Toolchain.discover()
    toolchain.manifest()  # probe the driver's tools now, before Ray's threads share this process
    generation = build_backend(config.generation, config.storage)
    init_ray(config)
    # Before any manifest: a node without its tools fails the job now, with one error naming it.
    check_cluster_toolchain(config.validation.pool.resources or None)
    check_shared_tier(config, folder)
    generation.preflight()  # engines no node can hold, a server that does not answer: one line now
    source = hashing.result()
    manifest = start_manifest(config, run_name, folder, url, source.sha256, toolchain, generation, source=source)
    manifest.warnings = generation.probe()
    for warning in manifest.warnings:
        log.warning("%s", warning)

    from linteval_ray.pipeline.source import admit_stage, batches_stage, read_inputs  # imports Ray Data

    done = done_row_ids(folder)
    log.info("rows: %d already done by earlier attempts; streaming %s (%d draws per sample)",
             len(done), url, config.generation.n)
    intake: list[Stage] = [admit_stage(folder, broadcast_done(done), url), batches_stage(config, url)]
    stages = pipeline_stages(config, folder, intake, generation)
    with generation.engines():  # after the probe: its engine's GPUs are free again
        record_sampling(folder, manifest, generation)
        inputs = read_inputs(config, url, folder.store, store_data=True,
                             cache_url=shared_cache_validation(config.validation, folder).cache_url)
        _execute(stages, inputs, expected=rows_expected(config, source.rows, len(done)), already_done=len(done))

    reduction = reduce_run(folder, config.generation.health)
    # The report reads the originals it shows back from the split (report/originals.py originals_of_run).
    publish(folder, reduction.results, reduction.metrics,
            title=f"{run_task(config).display_name} results: {run_name}")
    finish_manifest(folder, manifest, reduction)
    return RunOutcome(output=output, resumed_rows=len(done), new_rows=reduction.rows - len(done),
                      reduction=reduction, generation_warnings=manifest.warnings)


def rows_expected(config: RunConfig, source_rows: int | None, done: int) -> int | None:
    """About how many rows the stream will validate, for the progress bar's total and ETA:
    the split's rows x samples per row x draws less those done (malformed rows are in it, though
    ``admit`` writes them without validation). Named samples count as named; None when the
    language or problem filters decide in the stream which rows remain, or the rows are unknown."""
    dataset = config.dataset
    per_row = run_task(config).default_languages  # a task with answer languages: one sample per language
    if dataset.problem_ids or (dataset.languages and per_row is None) or source_rows is None:
        return None
    samples = source_rows * (len(dataset.languages or per_row) if per_row is not None else 1)
    samples = len(set(dataset.sample_ids)) if dataset.sample_ids else samples
    samples = min(samples, dataset.limit) if dataset.limit else samples
    return max(0, samples * config.generation.n - done)


def broadcast_done(done: set[str]) -> ray.ObjectRef[pa.Array] | None:
    """The done ids in the object store, once for every admit task (None: nothing done)."""
    import pyarrow as pa
    import ray

    return ray.put(pa.array(sorted(done), pa.string())) if done else None


def start_manifest(config: RunConfig, run_name: str, folder: RunFolder, url: str, dataset_sha: str,
                    toolchain: Toolchain, generation: GenerationBackend, *, source: SourceDigest | None = None,
                    ) -> manifests.Manifest:
    """The run's manifest, written before any work; refuses a folder holding another run."""
    profile = load_profile(config.validation.lint_profile)
    parts = run_fingerprint_parts(config, dataset_sha, toolchain)
    previous = manifests.read_manifest(folder)
    if previous is not None and (refused := manifests.refusal(previous, parts)):
        raise RunMismatchError(f"{folder.url} {refused}; choose a new output folder")
    manifest = manifests.Manifest(
        run_name=previous.run_name if previous else run_name,
        output=without_credentials(folder.url),
        # The settings in effect: the shared cache tier defaulted beside an object-store run shows where.
        config=manifests.redacted_config(config.model_copy(
            update={"validation": shared_cache_validation(config.validation, folder)})),
        fingerprint=manifests.digest(parts),
        fingerprint_scheme=manifests.FINGERPRINT_SCHEME,
        fingerprint_parts=parts,
        languages=language_sources(),
        dataset_url=without_credentials(url),
        dataset_sha256=dataset_sha,
        dataset_identity={"hashed": source.hashed, "files": source.files} if source is not None else {},
        task=run_task(config).name,
        prompt_version=generation.prompt_version or "none (replay)",
        model=without_credentials(generation.model_name()),  # an endpoint's URL may name it
        backend=config.generation.backend,
        toolchain=toolchain.manifest().model_dump(mode="json"),
        lint_profile=profile.summary(),
        versions=manifests.library_versions(),
        started_at=previous.started_at if previous else manifests.now(),
        attempts=previous.attempts + 1 if previous else 1,
    )
    manifests.write_manifest(folder, manifest)
    return manifest


def run_fingerprint_parts(config: RunConfig, dataset_sha: str, toolchain: Toolchain) -> dict[str, Any]:
    """What a run folder's results depend on (``manifests.fingerprint_parts``), for this config. Of the
    tools and the lint profile, the languages the run covers (``dataset.languages``, default every
    registered one): another language's tools or settings file, or a plugin registered since, leave
    the folder resumable."""
    profile = load_profile(config.validation.lint_profile)
    spec = run_task(config)
    covered = config.dataset.languages or spec.default_languages or language_names()
    toolchain_ids = {language: toolchain.language_id(language) for language in covered}
    judged_by_linters = spec.name == LINTEVAL_TASK  # no other task lints
    config_ids = {language: profile.config_id_of(language) for language in covered} if judged_by_linters else {}
    return manifests.fingerprint_parts(config, dataset_sha, toolchain_ids, config_ids, task=task_fingerprint(config))


def check_shared_tier(config: RunConfig, folder: RunFolder) -> None:
    """A task whose reader stores what its judging reads back (CodeContests-O's tests) needs a
    cache tier every node reads once the cluster has several nodes (Ray must be up)."""
    import ray

    if not run_task(config).stores_at_read or shared_cache_validation(config.validation, folder).cache_url:
        return
    nodes = [node for node in ray.nodes() if node.get("Alive")]  # type: ignore[no-untyped-call]
    if len(nodes) > 1:
        raise LintEvalError(f"task {config.task.name} stores each problem's tests once, where every node must "
                            f"read them: on a cluster of {len(nodes)} nodes set validation.cache_url (a folder or "
                            "s3://... every node reaches) or write the output to object storage")


def record_sampling(folder: RunFolder, manifest: manifests.Manifest, generation: GenerationBackend) -> None:
    """What every generation request carries, in the manifest before the first one (inside ``engines()``:
    the vllm backend has read the model's defaults there)."""
    sampling = generation.effective_sampling()
    if sampling is not None:
        manifest.sampling = sampling.model_dump()
        manifests.write_manifest(folder, manifest)


def finish_manifest(folder: RunFolder, manifest: manifests.Manifest, reduction: Reduction) -> None:
    manifest.finished_at = manifests.now()
    manifest.counts = {"rows": reduction.rows, "duplicates_dropped": reduction.duplicates,
                       **reduction.metrics.statuses}
    manifest.cache = cache_counts(folder)
    manifest.audit = audit_counts(folder)
    # Workers that handed their batch over wrote no rows: their records say who they were.
    manifest.out_of_service = {**out_of_service_reports(folder), **out_of_service_workers(reduction.results)}
    manifests.write_manifest(folder, manifest)


def init_ray(config: RunConfig) -> None:
    import ray

    if ray.is_initialized():
        return
    if config.ray.address or os.environ.get("RAY_ADDRESS"):
        # A cluster's workers do not inherit this process's environment: the languages' and tasks' plugins go along.
        plugins = {name: os.environ[name] for name in (PLUGINS_ENV, TASK_PLUGINS_ENV) if os.environ.get(name)}
        ray.init(address=config.ray.address, log_to_driver=True, runtime_env={"env_vars": plugins} if plugins else None)
        return
    # A local Ray: one logical CPU more than the cores, so that the light stages
    # (replay, shard writes) are never starved by a validation pool using every core.
    num_cpus = config.ray.num_cpus or (os.cpu_count() or 1) + 1
    ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=True)


def _execute(stages: list[Stage], ds: ray.data.Dataset, expected: int | None, already_done: int) -> None:
    """Stream the checked input rows through the stages; the last one's summary rows drive the
    progress log."""
    from linteval_ray.pipeline.source import stream_schema

    check_chain(stages, stream_schema().names)
    for stage in stages:
        ds = stage.apply(ds)
    ds.context.autoscaling_config = pool_autoscaling()  # the context the dataset runs with
    with Progress(total=expected, already_done=already_done) as progress:
        for batch in without_ray_progress(ds).iter_batches(batch_format="pyarrow", batch_size=None):
            summary = cast("pa.Table", batch)  # batch_format="pyarrow"
            progress.update(summary.column("status").to_pylist(), summary.column("pass_at_1").to_pylist())
