"""The validation stage: a pool of warm CPU actors judging every generated row (``ValidateBatch``)."""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import uuid
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from linteval_ray.config import RunConfig, ValidationConfig
from linteval_ray.pipeline.actor_records import record_out_of_service, stats_document
from linteval_ray.schema.arrow import result_schema, rows_to_table
from linteval_ray.schema.rows import GENERATION_COLUMNS
from linteval_ray.stage import BatchStage
from linteval_ray.store.folder import RunFolder
from linteval_ray.validate.audit import AuditStats

if TYPE_CHECKING:
    from ray.data.context import AutoscalingConfig

    from linteval_ray.schema import ResultRow
    from linteval_ray.validate.cache import CacheStats

log = logging.getLogger(__name__)

EXIT_OUT_OF_SERVICE = 75  # the exit status of a worker handing its batch over (EX_TEMPFAIL)
# One batch in flight per validation actor: a batch takes seconds to minutes, so a second one queued
# on a busy actor waits there while another actor (still starting, or done) sits idle. Ray Data's
# default (2) let the first actor up take both batches of a problem.
BATCHES_IN_FLIGHT_PER_ACTOR = 1
VALIDATE_COLUMNS = ("sample_id", "draw", "record_json", *GENERATION_COLUMNS)


class ValidateBatch:
    """A warm validation actor: toolchain, linters, sandbox and caches live across batches.

    Ray Data drops the instance when the actor exits gracefully (its worker's
    ``__ray_shutdown__``); ``__del__`` then closes the validator, removing its scratch dir.
    A killed actor leaves its dir behind: nothing runs in a SIGKILLed process.

    After each batch the actor writes its content-cache counters, and its audit's (revisions judged
    by both paths, ``validate/audit.py``), to ``cache-stats/<actor>.json`` in the run folder; the
    driver sums them into the manifest (``actor_records.py``).

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
        if not record_out_of_service(folder, self._worker, self._node, reason):
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


def _node_id() -> str:
    """The Ray node this actor runs on (the host name outside Ray): hand-overs are counted per node."""
    import ray

    if ray.is_initialized():
        return ray.get_runtime_context().get_node_id()
    return socket.gethostname()


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
        required_columns=VALIDATE_COLUMNS,
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


def actor_pool_size(config: RunConfig) -> tuple[int, int]:
    """(min, max) validation actors: as configured, else as many as the cluster's CPUs hold."""
    import ray

    pool = config.validation.pool
    if pool.max_actors is not None:
        return pool.min_actors, max(pool.min_actors, pool.max_actors)
    cpus = ray.cluster_resources().get("CPU", 1.0)  # type: ignore[no-untyped-call]  # ray leaves it untyped
    most = max(1, int((cpus - 0.5) // pool.num_cpus))
    return min(pool.min_actors, most), most
