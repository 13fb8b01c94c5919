"""The validation and store stages (generation's comes from its backend): their Ray Data
callables — the CPU validation actor and the shard writer — and the ``Stage`` of each."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import uuid
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from linteval_ray.config import RunConfig, ValidationConfig
from linteval_ray.generate.base import GenerationBackend
from linteval_ray.pipeline.stage import BatchStage, Stage, fuse
from linteval_ray.schema.arrow import result_schema, rows_to_table
from linteval_ray.schema.rows import GENERATION_COLUMNS
from linteval_ray.store.folder import RunFolder
from linteval_ray.store.shards import write_shard
from linteval_ray.validate.audit import AuditStats

if TYPE_CHECKING:
    from ray.data.context import AutoscalingConfig

    from linteval_ray.schema import ResultRow
    from linteval_ray.validate.cache import CacheStats

log = logging.getLogger(__name__)

STORE_NUM_CPUS = 0.1  # one Parquet encode and one write per batch
# Workers of one node a wrong canary may hand their batch over for (by exiting: Ray restarts the
# actor, possibly elsewhere, and retries the batch on the new process). Past it the node's workers
# answer infra_error rows instead, so a node that keeps failing its canaries cannot loop forever.
HANDOVERS_PER_NODE = 2
EXIT_OUT_OF_SERVICE = 75  # the exit status of a worker handing its batch over (EX_TEMPFAIL)
# One batch in flight per validation actor: a batch takes seconds to minutes, so a second one queued
# on a busy actor waits there while another actor (still starting, or done) sits idle. Ray Data's
# default (2) let the first actor up take both batches of a problem.
BATCHES_IN_FLIGHT_PER_ACTOR = 1
SUMMARY_SCHEMA = pa.schema(
    [("row_id", pa.string()), ("status", pa.string()), ("pass_at_1", pa.bool_()),
     ("language", pa.string()), ("total_s", pa.float64()), ("shard", pa.string())]
)


class ValidateBatch:
    """A warm validation actor: toolchain, linters, sandbox and caches live across batches.

    Ray Data drops the instance when the actor exits gracefully (its worker's
    ``__ray_shutdown__``); ``__del__`` then closes the validator, removing its scratch dir.
    A killed actor leaves its dir behind: nothing runs in a SIGKILLed process.

    After each batch the actor writes its content-cache counters, and its audit's (revisions judged
    by both paths, ``validate/audit.py``), to ``cache-stats/<actor>.json`` in the run folder; the
    driver sums them into the manifest.

    A wrong canary (``validate/canary.py``) is recorded in ``out-of-service/<node>-<pid>.json``;
    then, while its node has hand-overs left (``HANDOVERS_PER_NODE``), the actor closes its validator
    and exits without returning the batch: Ray Data's actor pools restart a dead actor and retry
    its batch (``max_restarts``/``max_task_retries`` -1), so the rows are judged by a fresh worker,
    which passes its own canaries first. Past them the rows come back ``infra_error``."""

    def __init__(self, validation: ValidationConfig, folder: RunFolder, prompt_version: str | None):
        from linteval_ray.validate.engine import Validator

        self._validator: Validator | None = Validator(validation, folder.store)
        self._prompt_version = prompt_version
        self._worker = f"{socket.gethostname()}:{os.getpid()}"
        self._node = _node_id()
        self._out_of_service_recorded = False
        self._folder = folder
        self.stats_name = f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:8]}.json"

    def __call__(self, batch: pa.Table) -> pa.Table:
        results = self.evaluate(batch, self._folder, self._prompt_version)
        self._folder.store.write_atomic(f"{self._folder.cache_stats}/{self.stats_name}",
                                        stats_document(self.cache_stats(), self.audit_stats()))
        return rows_to_table(results)

    def evaluate(self, batch: pa.Table, folder: RunFolder, prompt_version: str | None) -> list[ResultRow]:
        """The result rows of ``batch``, judged for the run in ``folder`` (its own, or in a set's
        actor the run of the model the batch came from: sets/evaluate.py)."""
        if self._validator is None:
            raise RuntimeError("ValidateBatch was closed")
        results = self._validator.evaluate_batch(batch.to_pylist())
        if self._validator.out_of_service is not None and not self._out_of_service_recorded:
            self._record_out_of_service(self._validator.out_of_service, folder)
        for result in results:
            result.prompt_version = prompt_version
            result.worker = self._worker
        return results

    def cache_stats(self) -> CacheStats:
        """This actor's content-cache counters since it started."""
        if self._validator is None:
            raise RuntimeError("ValidateBatch was closed")
        return self._validator.cache.stats_snapshot()

    def audit_stats(self) -> AuditStats:
        """This actor's audit since it started (a copy)."""
        if self._validator is None:
            raise RuntimeError("ValidateBatch was closed")
        return self._validator.audit.model_copy(deep=True)

    def _record_out_of_service(self, reason: str, folder: RunFolder) -> None:
        """Record this worker's wrong canary; exit (handing the batch over) while its node may."""
        self._out_of_service_recorded = True
        records = folder.store.list_files(folder.out_of_service, ".json", recursive=False)
        earlier = [url for url in records if url.rsplit("/", 1)[-1].startswith(f"{self._node}-")]
        hand_over = len(earlier) < HANDOVERS_PER_NODE
        record = {"worker": self._worker, "node": self._node, "reason": reason, "handed_over": hand_over}
        name = f"{self._node}-{os.getpid()}-{uuid.uuid4().hex[:8]}.json"
        folder.store.write_atomic(f"{folder.out_of_service}/{name}", json.dumps(record).encode())
        if not hand_over:
            log.error("worker %s out of service and its node has no hand-overs left: its rows are infra_error",
                      self._worker)
            return
        log.error("worker %s out of service (%s): exiting so that a restarted worker judges its batch",
                  self._worker, reason)
        self.close()
        logging.shutdown()
        os._exit(EXIT_OUT_OF_SERVICE)

    def close(self) -> None:
        """Stop the linters and the sandbox, remove the scratch dir; a second call does nothing."""
        validator, self._validator = getattr(self, "_validator", None), None
        if validator is not None:
            validator.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # a finalizer must never raise
            self.close()


def store_batch(batch: pa.Table, folder: RunFolder, rows_per_shard: int) -> pa.Table:
    """Write a batch of result rows as atomic shards of at most ``rows_per_shard`` rows; pass on
    a small summary."""
    names: list[str] = []
    for start in range(0, batch.num_rows, rows_per_shard):
        shard = batch.slice(start, rows_per_shard)
        names += [write_shard(folder, shard)] * shard.num_rows
    timings: list[dict[str, Any]] = batch.column("timings").to_pylist()
    return pa.table(
        {
            "row_id": batch.column("row_id"),
            "status": batch.column("status"),
            "pass_at_1": batch.column("pass_at_1"),
            "language": batch.column("language"),
            "total_s": [t["total_s"] if t else 0.0 for t in timings],
            "shard": names,
        },
        schema=SUMMARY_SCHEMA,
    )


def validation_stage(config: RunConfig, folder: RunFolder, prompt_version: str | None) -> BatchStage:
    """The CPU actor pool judging every generated row (needs Ray up: it sizes the pool).

    Rows arrive ordered by problem (``pipeline.inputs.input_rows``) and each batch goes to one
    actor whole, so a problem's samples of every language share an actor when they fit in a
    batch (``validation.pool.batch_size``). A problem larger than a batch, or cut by a batch
    boundary, spans two batches that may run on two actors at once: the content cache's
    single flight then makes the second wait for the first's tools instead of compiling them,
    and its shared tier (beside the output on object storage) serves every node."""
    from ray.data import ActorPoolStrategy

    pool = config.validation.pool
    min_actors, max_actors = actor_pool_size(config)
    map_kwargs: dict[str, Any] = {
        "compute": ActorPoolStrategy(min_size=min_actors, max_size=max_actors,
                                     max_tasks_in_flight_per_actor=BATCHES_IN_FLIGHT_PER_ACTOR),
        "batch_size": pool.batch_size,
        "batch_format": "pyarrow",
        "num_cpus": pool.num_cpus,
    }
    if pool.resources:
        map_kwargs["resources"] = pool.resources
    # Ray Data restarts a dead actor and retries its batch (max_restarts / max_task_retries
    # default to -1 for actor pools): a killed worker delays rows, it never loses them.
    return BatchStage(
        name="validate",
        fn=ValidateBatch,
        fn_constructor_kwargs={"validation": shared_cache_validation(config.validation, folder),
                               "folder": folder, "prompt_version": prompt_version},
        map_batches_kwargs=map_kwargs,
        required_columns=("sample_id", "draw", "record_json", *GENERATION_COLUMNS),
        output_schema=result_schema(),
    )


def pool_autoscaling() -> AutoscalingConfig:
    """When Ray Data grows and shrinks the validation pool.

    Grow as soon as every actor has its batch: Ray Data adds actors when a pool's tasks in
    flight reach 1.75x its actors (its default threshold), which a pool of one batch in flight
    per actor never reaches, so runs stayed at ``min_actors`` whatever the cluster held (Ray
    warned "will not allow it to scale up"). Its autoscaler then sizes the pool to the batches
    it sees, in flight and queued, up to ``max_actors``: a large cluster fills in one step.

    Shrink only when no actor has a batch (and at the end of the input): by default an actor is
    released when the pool is half idle, which happens whenever the queue runs dry for a moment
    (the split's last, partial batch comes after the others): a new actor then starts for the
    next batch, ~10 CPU-s of start-up and warm linters thrown away each time (measured).

    Both are the dataset's: any other autoscaling actor pool of the run (the vLLM stage's PromptFit)
    follows them too. The vLLM engines are a fixed pool of ``replicas`` (``generate/engine.py``):
    neither rule can release and reload an engine."""
    from ray.data.context import AutoscalingConfig

    return AutoscalingConfig(actor_pool_util_upscaling_threshold=float(BATCHES_IN_FLIGHT_PER_ACTOR),
                             actor_pool_util_downscaling_threshold=0.0)


def shared_cache_validation(validation: ValidationConfig, folder: RunFolder) -> ValidationConfig:
    """``validation`` with the shared cache tier defaulted beside the run folder (object storage
    only; a configured ``cache_url`` wins)."""
    if validation.cache_url is not None:
        return validation
    return validation.model_copy(update={"cache_url": folder.default_shared_cache()})


def store_stage(config: RunConfig, folder: RunFolder) -> BatchStage:
    """Result rows → atomic shards in the run folder, a summary row per result row out. As an
    operator of its own, at most one task per validation actor at once: a task asking 0.1 CPU
    would otherwise let Ray start a Python worker (~2-3 CPU-s of imports) for each of up to ten
    per free CPU, under load when writes wait, for a job that takes milliseconds."""
    from ray.data import TaskPoolStrategy

    return BatchStage(
        name="store",
        fn=store_batch,
        fn_kwargs={"folder": folder, "rows_per_shard": config.validation.pool.store_batch_size},
        map_batches_kwargs={"batch_size": config.validation.pool.store_batch_size, "batch_format": "pyarrow",
                            "num_cpus": STORE_NUM_CPUS, "compute": TaskPoolStrategy(size=actor_pool_size(config)[1])},
        required_columns=tuple(result_schema().names),
        output_schema=SUMMARY_SCHEMA,
    )


def out_of_service_reports(folder: RunFolder) -> dict[str, str]:
    """worker -> why a canary took it out of service, from the records the workers wrote (every
    attempt of the run; a worker that handed its batch over wrote no rows)."""
    reports: dict[str, str] = {}
    for url in folder.store.list_files(folder.out_of_service, ".json", recursive=False):
        record = json.loads(folder.store.read_bytes(url))
        reports[str(record["worker"])] = str(record["reason"])
    return reports


def _node_id() -> str:
    """The Ray node this actor runs on (the host name outside Ray): hand-overs are counted per node."""
    import ray

    if ray.is_initialized():
        return ray.get_runtime_context().get_node_id()
    return socket.gethostname()


def pipeline_stages(config: RunConfig, folder: RunFolder, intake: list[Stage],
                    generation: GenerationBackend) -> list[Stage]:
    """intake (admit, batches: in the read's task) → generate → validate → store, with the light
    stages around validation run inside the validation actor where they can be, so that a run has
    as few Ray Data operators (and their Python workers, tasks and object-store hops per batch)
    as its backend allows:

    - replay (a lookup per row) runs in the actor, before validating; a model's stage (engines,
      an HTTP client pool) stays an operator of its own;
    - the store runs in the actor after validating when a shard fits in a validation batch
      (``store_batch_size <= batch_size``: each batch is cut into shards); a larger shard gathers
      several batches, in an operator of its own."""
    pool = config.validation.pool
    validate = validation_stage(config, folder, generation.prompt_version)
    store = store_stage(config, folder)
    generate = generation.stage()
    if generation.runs_in_validation_actor and isinstance(generate, BatchStage):
        front, parts = intake, [generate, validate]
    else:
        front, parts = [*intake, generate], [validate]
    if pool.store_batch_size > pool.batch_size:
        return [*front, fuse("evaluate", parts, host=validate), store]
    return [*front, fuse("evaluate", [*parts, store], host=validate)]


def stats_document(cache: CacheStats, audit: AuditStats) -> bytes:
    """An actor's ``cache-stats/<actor>.json``: its content-cache counters and its audit's."""
    return json.dumps({**cache.model_dump(mode="json"), "audit": audit.model_dump(mode="json")}).encode()


def cache_counts(folder: RunFolder) -> dict[str, dict[str, int]]:
    """The content-cache counters per key kind, summed over every validation actor of the run
    (all attempts: a resumed run adds its actors' counts to the earlier ones)."""
    totals: dict[str, dict[str, int]] = {}
    for url in folder.store.list_files(folder.cache_stats, ".json", recursive=False):
        for kind, counts in json.loads(folder.store.read_bytes(url)).get("by_kind", {}).items():
            into = totals.setdefault(kind, {})
            for name, value in counts.items():
                into[name] = into.get(name, 0) + int(value)
    return dict(sorted(totals.items()))


def audit_counts(folder: RunFolder) -> dict[str, Any]:
    """The audit's counters (revisions judged by both paths, agreed, disagreed, a few disagreeing row
    ids), summed over every validation actor of the run (all attempts)."""
    total = AuditStats()
    for url in folder.store.list_files(folder.cache_stats, ".json", recursive=False):
        total.add(AuditStats.model_validate(json.loads(folder.store.read_bytes(url)).get("audit", {})))
    return total.model_dump(mode="json")


def actor_pool_size(config: RunConfig) -> tuple[int, int]:
    """(min, max) validation actors: as configured, else as many as the cluster's CPUs hold."""
    import ray

    pool = config.validation.pool
    if pool.max_actors is not None:
        return pool.min_actors, max(pool.min_actors, pool.max_actors)
    cpus = ray.cluster_resources().get("CPU", 1.0)  # type: ignore[no-untyped-call]  # ray leaves it untyped
    most = max(1, int((cpus - 0.5) // pool.num_cpus))
    return min(pool.min_actors, most), most
