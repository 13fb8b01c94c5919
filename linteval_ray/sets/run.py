"""``linteval-ray run`` of a set: several models and checkpoints in one Ray job, work done once.

The design (``sets/__init__.py`` says why):

- **One validation execution for the whole set.** Its source is the feed (``feed.py``); its one
  operator is the single run's validation pool with ``SetEvaluateBatch`` (``evaluate.py``): one
  warm actor pool, each problem set up once by the content cache, every model's rows judged into
  that model's run folder ``OUTPUT/models/<name>/``. It runs while the models come: its
  summaries are read on a thread of the driver.
- **One intake execution per model, one after the other** on the driver's main thread: the single
  run's read → admit → batches (→ the model's generation stage: vLLM, an endpoint; replay rides in
  the validation actor), its blocks' refs handed to the feed. When a model's execution ends, Ray
  Data has released its engines and ``GenerationBackend.engines()`` their placement groups; the next
  model's are placed after that, while
  validation goes on with the rows already fed: model i+1's engines start during model i's tail.
- **Each model finishes on its own**: as soon as every row it fed is judged, a finisher thread
  reduces it, writes its report and manifest (exactly as ``run`` does), updates the leaderboard
  and logs it to the trackers, while later models still run.
- **A model folder is a single run's folder**: its config is ``spec.member_config`` (the set's,
  with the model's generation), so its manifest, fingerprint, shards, results.parquet,
  metrics.json and report are those ``linteval-ray run`` writes for that model; a rerun or a
  single ``run`` on it resumes it.
- **Resumable as a set**: a model whose manifest is finished (and has no ``infra_error`` rows)
  is skipped; a partial one is resumed by its own done rows; new entries and new checkpoints are
  added. ``set.json`` keeps every model evaluated so far (a checkpoint the training run deleted
  stays on the leaderboard). ``--follow`` polls the checkpoint glob and runs a round per poll
  that found new, settled checkpoints (``checkpoints.ReadyCheckpoints``), until interrupted: between
  rounds nothing of the set holds the cluster but Ray itself.
"""

from __future__ import annotations

import logging
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from pydantic import BaseModel, ConfigDict, Field

from linteval_ray.config import ConfigError, RunConfig, ValidationConfig
from linteval_ray.config.section import without_credentials
from linteval_ray.generate.base import GenerationBackend
from linteval_ray.generate.registry import build_backend
from linteval_ray.load.presets import resolve_source
from linteval_ray.load.readers import SourceDigest
from linteval_ray.pipeline.dataset import identity_in_background, resolved, run_task
from linteval_ray.pipeline.progress import Progress, without_ray_progress
from linteval_ray.pipeline.run import (
    RunMismatchError,
    broadcast_done,
    finish_manifest,
    init_ray,
    record_sampling,
    resolve_output,
    rows_expected,
    run_fingerprint_parts,
    start_manifest,
)
from linteval_ray.pipeline.validation import pool_autoscaling, shared_cache_validation
from linteval_ray.reduce.reduce import reduce_run
from linteval_ray.report.publish import publish
from linteval_ray.sets.checkpoints import Checkpoint, ReadyCheckpoints, find_checkpoints
from linteval_ray.sets.evaluate import Lane, set_stages
from linteval_ray.sets.feed import PACKED_SCHEMA, SET_MODEL, Feed, feed_dataset
from linteval_ray.sets.folder import SetEntry, SetFolder, SetRecord
from linteval_ray.sets.leaderboard import Board, Leaderboard, metrics_of, write_leaderboard
from linteval_ray.sets.spec import SetMember, member_config, members_of
from linteval_ray.stage import BatchStage, Stage, check_chain
from linteval_ray.store import manifest as manifests
from linteval_ray.store.folder import RunFolder
from linteval_ray.store.shards import done_row_ids
from linteval_ray.toolchain import Toolchain
from linteval_ray.toolchain.cluster import check_cluster_toolchain
from linteval_ray.toolchain.manifest import ToolchainManifest
from linteval_ray.track.base import TrackedRun, flat_metrics
from linteval_ray.track.registry import Trackers

if TYPE_CHECKING:
    import pyarrow as pa
    import ray.data

log = logging.getLogger(__name__)

FIRST_SETTLE_S = 10.0  # --follow: a checkpoint found at start must look the same this much later


class SetOutcome(BaseModel):
    output: str
    leaderboard: Leaderboard | None
    evaluated: list[str] = Field(description="models evaluated (or resumed) by this command")
    finished_before: list[str] = Field(description="models an earlier attempt finished (skipped)")
    unhealthy: list[str] = Field(default_factory=list, description="models evaluated now whose generations failed "
                                 "a health check (cut at max_tokens, no code, the LoRA probe): --strict exits 1")
    warnings: list[str] = Field(default_factory=list)


class Prepared(BaseModel):
    """A model of the round with work left: its run folder and config, backend and manifest."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    member: SetMember
    config: RunConfig
    folder: RunFolder
    backend: GenerationBackend
    manifest: manifests.Manifest
    done: set[str]

    @property
    def name(self) -> str:
        return self.member.name


def run_set(config: RunConfig) -> SetOutcome:
    """Evaluate every model of the set (resuming an earlier attempt), then keep following the
    checkpoint glob when asked to."""
    config = resolved(config)  # the task: from the setting, the preset or the split's columns
    set_name, output = resolve_output(config)
    folder = SetFolder.open(output, config.storage)
    url = resolve_source(config.dataset.source)
    log.info("set %s: %s dataset %s -> %s", set_name, config.task.name, url, output)
    hashing = identity_in_background(config, url)
    toolchain = Toolchain.discover()
    toolchain.manifest()  # probe the driver's tools now, before Ray's threads share this process
    trackers = Trackers(config.tracking, set_name)  # a tracker whose package is missing: refused now
    init_ray(config)
    check_cluster_toolchain(config.validation.pool.resources or None)
    driver = SetDriver(config, folder, set_name, url, hashing.result(), toolchain, trackers)
    try:
        if config.checkpoints.follow_s is None:
            driver.round(driver.checkpoints())
        else:
            driver.follow(config.checkpoints.follow_s)
    finally:
        trackers.close()
    return driver.outcome()


class SetDriver:
    """The driver of one set: its rounds, the models' run folders, the leaderboard, the trackers."""

    def __init__(self, config: RunConfig, folder: SetFolder, set_name: str, url: str, source: SourceDigest,
                 toolchain: Toolchain, trackers: Trackers) -> None:
        self.config, self.folder, self.url, self.source = config, folder, url, source
        self.toolchain, self.trackers = toolchain, trackers
        self.record = folder.read_record() or SetRecord(run_name=set_name)
        # One shared cache tier for every model: beside the set folder, as for a single run there.
        self.validation: ValidationConfig = shared_cache_validation(config.validation,
                                                                    RunFolder(url=folder.url, store=folder.store))
        self.board: Board | None = None
        self.evaluated: list[str] = []
        self.finished_before: list[str] = []
        self.unhealthy: list[str] = []
        self._lock = threading.Lock()  # set.json, the board and the trackers: main and finisher threads

    # -- the models ------------------------------------------------------------------------------

    def checkpoints(self) -> list[Checkpoint]:
        glob = self.config.checkpoints.glob
        return find_checkpoints(glob, self.folder.store) if glob else []

    def follow(self, every_s: float) -> None:
        """Rounds of the checkpoints that appeared and settled, every ``every_s`` seconds, until interrupted."""
        ready = ReadyCheckpoints()
        ready.ready(self.checkpoints())
        wait_s = min(every_s, FIRST_SETTLE_S)
        log.info("following %s every %gs (Ctrl-C stops)", self.config.checkpoints.glob, every_s)
        try:
            while True:
                time.sleep(wait_s)
                self.round(ready.ready(self.checkpoints()))
                wait_s = every_s
        except KeyboardInterrupt:
            log.info("follow stopped; the set's results are in %s", self.folder.url)

    def round(self, checkpoints: list[Checkpoint]) -> None:
        """Evaluate the set's models that have work left: configured entries and ``checkpoints``."""
        members = members_of(self.config, checkpoints)
        if not self._record_members(members):
            return
        prepared = [p for m in members if (p := self._prepare(m)) is not None]
        if prepared:
            self._evaluate(prepared)
        self._publish_board()

    def _record_members(self, members: list[SetMember]) -> bool:
        """set.json: every model so far in the set's order (configured ones as listed, then checkpoints by
        step). False when there is none yet (``--follow`` before the first checkpoint)."""
        known = {e.name: e for e in self.record.models}
        for member in members:
            previous = known.get(member.name)
            known[member.name] = SetEntry(name=member.name, step=member.step, checkpoint=member.checkpoint,
                                          tracked=previous.tracked if previous else {})
        current = [m.name for m in members if m.checkpoint is None]
        explicit = current + [e.name for e in self.record.models if e.checkpoint is None and e.name not in current]
        stepped = sorted((e for e in known.values() if e.checkpoint is not None),
                         key=lambda e: (e.step is None, e.step or 0, e.name))
        self.record.models = [known[n] for n in explicit] + stepped
        following = self.config.checkpoints.follow_s is not None
        if not self.record.models:
            if following:
                log.info("no checkpoint of %s is ready yet", self.config.checkpoints.glob)
                return False
            raise ConfigError(f"the set has no model: no folder that --checkpoints {self.config.checkpoints.glob} "
                              "matches holds a model (config.json) or an adapter (adapter_config.json)")
        baseline = self.config.baseline or self.record.models[0].name
        if self.record.entry(baseline) is None and not following:  # following: a checkpoint still to come
            raise ConfigError(f"--baseline {baseline}: no such model in the set "
                              f"({', '.join(e.name for e in self.record.models)})")
        with self._lock:
            if self.board is None or self.board.baseline != baseline:
                self.board = Board(baseline, [e.name for e in self.record.models], self.config.rank_by)
            self.board.order([e.name for e in self.record.models])
            self.folder.write_record(self.record)
        return True

    def _prepare(self, member: SetMember) -> Prepared | None:
        """The model's run folder, claimed (its manifest written, another run refused); None when an
        earlier attempt finished it."""
        folder = self.folder.model(member.name)
        config = resolved(member_config(self.config, member, folder.url).model_copy(
            update={"validation": self.validation}))  # a model's own prompt version is its task's too
        previous = manifests.read_manifest(folder)
        parts = run_fingerprint_parts(config, self.source.sha256, self.toolchain)
        if previous is not None and (refused := manifests.refusal(previous, parts)):
            raise RunMismatchError(f"model {member.name}: {folder.url} {refused}; rename the model or remove its "
                                   "folder")
        if previous is not None and previous.finished_at and not previous.counts.get("infra_error"):
            self._add_finished(member, folder, previous)
            return None
        backend = build_backend(config.generation, config.storage)
        backend.preflight()  # engines no node can hold, a server that does not answer: one line now
        manifest = start_manifest(config, member.name, folder, self.url, self.source.sha256, self.toolchain, backend,
                                  source=self.source)
        return Prepared(member=member, config=config, folder=folder, backend=backend, manifest=manifest,
                        done=done_row_ids(folder))

    def _add_finished(self, member: SetMember, folder: RunFolder, manifest: manifests.Manifest) -> None:
        if member.name not in self.finished_before:
            self.finished_before.append(member.name)
        with self._lock:
            assert self.board is not None
            if member.name not in self.board.names:
                self.board.add(member.name, folder, metrics_of(folder), model=manifest.model, step=member.step)

    # -- one round: the shared validation execution, the models' intakes, each model's finish ----

    def _evaluate(self, prepared: list[Prepared]) -> None:
        import ray
        import ray.data

        feed = Feed.remote()  # type: ignore[attr-defined]  # a Ray actor class
        lanes = [Lane(name=p.name, folder=p.folder, prompt_version=p.backend.prompt_version,
                      front=(cast(BatchStage, p.backend.stage()),) if p.backend.runs_in_validation_actor else ())
                 for p in prepared]
        stages = set_stages(self.config.model_copy(update={"validation": self.validation}), lanes)
        validation = _applied(stages, feed_dataset(feed, self.config.validation.pool.batch_size), PACKED_SCHEMA.names)
        validation.context.autoscaling_config = pool_autoscaling()  # the context the dataset runs with
        without_ray_progress(validation)
        tally = Tally(prepared)
        totals = [rows_expected(p.config, self.source.rows, len(p.done)) for p in prepared]
        progress = Progress(total=None if None in totals else sum(t or 0 for t in totals),
                            already_done=sum(len(p.done) for p in prepared))
        finisher = ThreadPoolExecutor(max_workers=1, thread_name_prefix="set-finisher")
        finishing: list[Future[None]] = []

        def finish(name: str) -> None:
            finishing.append(finisher.submit(self._finish, tally.prepared[name]))

        consumer = threading.Thread(target=_consume, args=(validation, progress, tally, finish), daemon=True,
                                    name="set-validation")
        try:
            with progress:
                consumer.start()
                try:
                    for model in prepared:
                        if tally.error is not None:
                            break  # validation failed: no model starts its engines for nothing
                        self._intake(model, feed, tally)
                        if tally.intake_done(model.name):
                            finish(model.name)
                finally:
                    ray.get(feed.close.remote())  # validation ends once what was fed is judged
                    consumer.join()
        finally:
            finisher.shutdown(wait=True)  # the models that completed finish, whatever failed
        if tally.error is not None:
            raise tally.error
        for future in finishing:
            future.result()  # a model's reduction or report that failed fails the set, after the others

    def _intake(self, model: Prepared, feed: ray.actor.ActorHandle[Any], tally: Tally) -> None:
        """The model's rows to do (read, admit, batches, its generation) into the feed."""
        import ray

        from linteval_ray.pipeline.source import admit_stage, batches_stage, read_inputs, stream_schema

        log.info("model %s: %d rows already done; generating with %s", model.name, len(model.done),
                 model.backend.model_name())
        warnings = model.backend.probe()  # the LoRA probe: an engine of its own, released before the model's
        if warnings:
            model.manifest.warnings = warnings
            manifests.write_manifest(model.folder, model.manifest)
            for warning in warnings:
                log.warning("model %s: %s", model.name, warning)
        stages: list[Stage] = [admit_stage(model.folder, broadcast_done(model.done), self.url),
                               batches_stage(model.config, self.url)]
        if not model.backend.runs_in_validation_actor:
            stages.append(model.backend.stage())
        # The stages are built inside: a vLLM stage places its engines in the groups reserved here,
        # removed at the block's end, before the next model's are reserved.
        with model.backend.engines():
            record_sampling(model.folder, model.manifest, model.backend)
            inputs = read_inputs(model.config, self.url, model.folder.store, store_data=True,
                                 cache_url=self.validation.cache_url)
            rows = without_ray_progress(_applied(stages, inputs, stream_schema().names))
            for bundle in rows.iter_internal_ref_bundles():
                blocks = [(entry.ref, *_slice(block_slice)) for entry, block_slice in zip(
                    bundle.blocks, bundle.slices or [None] * len(bundle.blocks), strict=True)]
                count = bundle.num_rows() or 0
                if count:
                    tally.fed(model.name, count)
                    ray.get(feed.put.remote((model.name, blocks)))
                if tally.error is not None:
                    return  # validation failed: the set fails with its error

    def _finish(self, model: Prepared) -> None:
        """Reduce the model, write its report and manifest (as ``run`` does), then the leaderboard
        and the trackers."""
        reduction = reduce_run(model.folder, model.config.generation.health)
        publish(model.folder, reduction.results, reduction.metrics,
                title=f"{run_task(model.config).display_name} results: {model.name}")
        finish_manifest(model.folder, model.manifest, reduction)
        log.info("model %s: %d rows, Pass@1 %s", model.name, reduction.rows, reduction.metrics.overall.pass_at_1)
        with self._lock:
            self.evaluated.append(model.name)
            if reduction.metrics.generation.problems() or model.manifest.warnings:
                self.unhealthy.append(model.name)
            assert self.board is not None
            self.board.add(model.name, model.folder, reduction.metrics, model=model.manifest.model,
                           step=model.member.step)
            self._write_board()
            self._track(model.name, model.folder, model.manifest, model.member.step)

    # -- the leaderboard and the trackers -------------------------------------------------------

    def _publish_board(self) -> None:
        """The round's last word: the leaderboard, and the trackers told of any model not logged yet
        (finished by an earlier attempt, or while a tracker was down)."""
        with self._lock:
            assert self.board is not None
            if not self.board.names:
                return
            self._write_board()
            for entry in self.record.models:
                folder = self.folder.model(entry.name)
                manifest = manifests.read_manifest(folder)
                if entry.name in self.board.names and manifest is not None and manifest.finished_at:
                    self._track(entry.name, folder, manifest, entry.step)

    def _write_board(self) -> None:
        assert self.board is not None
        write_leaderboard(self.folder, self.board.leaderboard())

    def _track(self, name: str, folder: RunFolder, manifest: manifests.Manifest, step: int | None) -> None:
        """Log model ``name`` to the trackers that have not recorded it (its run id goes to set.json)."""
        entry = self.record.entry(name)
        if not self.trackers.names or entry is None or set(self.trackers.names) <= set(entry.tracked):
            return
        with tempfile.TemporaryDirectory(prefix="linteval-track-") as tmp:
            run = TrackedRun(name=name, group=self.record.run_name, step=step, metrics=flat_metrics(metrics_of(folder)),
                             tags=tracker_tags(folder, manifest, self.record.run_name, step),
                             artifacts=_local_copies([folder.results, *self._board_files()], folder, Path(tmp)))
            entry.tracked |= self.trackers.log(run, entry.tracked)
        self.folder.write_record(self.record)

    def _board_files(self) -> list[str]:
        from linteval_ray.sets.folder import CURVE_PNG, LEADERBOARD_JSON, LEADERBOARD_MD

        names = [LEADERBOARD_JSON, LEADERBOARD_MD, CURVE_PNG]
        return [url for url in (self.folder.path(n) for n in names) if self.folder.store.exists(url)]

    def outcome(self) -> SetOutcome:
        board = self.board.leaderboard() if self.board is not None and self.board.names else None
        return SetOutcome(output=self.folder.url, leaderboard=board, evaluated=self.evaluated,
                          finished_before=self.finished_before, unhealthy=self.unhealthy,
                          warnings=self.trackers.warnings)


class Tally:
    """Rows fed and judged per model, to know when a model is complete (everything it fed judged).
    Written by the main thread (fed) and the validation consumer (judged)."""

    def __init__(self, prepared: list[Prepared]) -> None:
        self.prepared = {p.name: p for p in prepared}
        self._fed: Counter[str] = Counter()
        self._judged: Counter[str] = Counter()
        self._intake_done: set[str] = set()
        self._finished: set[str] = set()
        self._lock = threading.Lock()
        self.error: BaseException | None = None

    def fed(self, name: str, rows: int) -> None:
        with self._lock:
            self._fed[name] += rows

    def intake_done(self, name: str) -> bool:
        """Mark ``name``'s rows all fed; True when that completes it (once)."""
        with self._lock:
            self._intake_done.add(name)
            return self._complete(name)

    def judged(self, name: str, rows: int) -> bool:
        """Count ``rows`` of ``name`` judged; True when that completes it (once)."""
        with self._lock:
            self._judged[name] += rows
            return self._complete(name)

    def _complete(self, name: str) -> bool:
        if name in self._finished or name not in self._intake_done or self._judged[name] < self._fed[name]:
            return False
        self._finished.add(name)
        return True


def _consume(validation: ray.data.Dataset, progress: Progress, tally: Tally,
             finish: Callable[[str], None]) -> None:
    """The validation thread: every summary batch counts for the progress and its model's tally."""
    try:
        for batch in validation.iter_batches(batch_format="pyarrow", batch_size=None):
            summary = cast("pa.Table", batch)
            progress.update(summary.column("status").to_pylist(), summary.column("pass_at_1").to_pylist())
            for name, rows in Counter(summary.column(SET_MODEL).to_pylist()).items():
                if tally.judged(name, rows):
                    finish(name)
    except BaseException as exc:  # noqa: BLE001 -- the main thread raises it once the feed is closed
        tally.error = exc


def _applied(stages: Sequence[Stage], ds: ray.data.Dataset, columns: list[str]) -> ray.data.Dataset:
    check_chain(stages, columns)
    for stage in stages:
        ds = stage.apply(ds)
    return ds


def _slice(block_slice: object) -> tuple[int, int | None]:
    """A bundle entry's rows: (start, end) of its block (end None: to the block's end)."""
    if block_slice is None:
        return 0, None
    return int(block_slice.start_offset), int(block_slice.end_offset)  # type: ignore[attr-defined]


def tracker_tags(folder: RunFolder, manifest: manifests.Manifest, set_name: str, step: int | None) -> dict[str, str]:
    """What a tracker run is tagged with: where the results are and what they were made from
    (URLs without any credentials)."""
    toolchain = ToolchainManifest.model_validate(manifest.toolchain).toolchain_id
    tags = {"linteval.set": set_name, "linteval.run_folder": folder.url, "linteval.model": manifest.model,
            "linteval.backend": manifest.backend, "linteval.prompt_version": manifest.prompt_version,
            "linteval.dataset_url": manifest.dataset_url, "linteval.dataset_sha256": manifest.dataset_sha256,
            "linteval.toolchain_id": toolchain, "linteval.fingerprint": manifest.fingerprint,
            "linteval.lint_profile": str(manifest.lint_profile.get("config_id", ""))}
    if step is not None:
        tags["linteval.step"] = str(step)
    return {key: without_credentials(value) for key, value in tags.items()}


def _local_copies(urls: list[str], folder: RunFolder, into: Path) -> list[Path]:
    """The files at ``urls`` as local files (trackers upload from disk)."""
    paths = []
    for url in urls:
        path = into / url.rsplit("/", 1)[-1]
        path.write_bytes(folder.store.read_bytes(url))
        paths.append(path)
    return paths
