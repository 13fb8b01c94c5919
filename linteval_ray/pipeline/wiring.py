"""A run's stages in order: intake → generate → validate → store, as few Ray Data operators as
its backend allows."""

from __future__ import annotations

from linteval_ray.config import RunConfig
from linteval_ray.generate.base import GenerationBackend
from linteval_ray.pipeline.store import store_stage
from linteval_ray.pipeline.validation import validation_stage
from linteval_ray.stage import BatchStage, Stage, fuse
from linteval_ray.store.folder import RunFolder


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
