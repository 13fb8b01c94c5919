"""The run's task and split, decided on the driver before anything runs (no row is read here).

The task is the ``task.name`` setting, else the preset's (``--dataset codecontests-o:test``), else
the one task whose rows the split's columns are (a Parquet footer, the keys of a JSONL file's first
line: ``load/split.py``). ``resolved`` writes the decision into the config every later step reads:
``task.name`` set, ``task.options`` checked by the task, a prompt version of another task than
LintEval qualified with it (``v1`` -> ``codecontests-o/v1``: that task's own template), and a set's
models ranked by Pass@1 for a task without LintEval's Reduction@P.
"""

from __future__ import annotations

from concurrent.futures import Future

from pydantic import BaseModel

from linteval_ray.config import ConfigError, RunConfig, TaskConfig
from linteval_ray.load.presets import preset_task, resolve_source
from linteval_ray.load.readers import SourceDigest
from linteval_ray.load.split import split_columns, split_files
from linteval_ray.prompt.template import qualified_version
from linteval_ray.schema.task import LINTEVAL_TASK
from linteval_ray.store.fs import ObjectStore
from linteval_ray.tasks.base import Task
from linteval_ray.tasks.registry import task, tasks


def resolved(config: RunConfig) -> RunConfig:
    """``config`` with its task decided and its prompt version qualified (see the module docstring);
    a ``ConfigError`` when neither the setting, the preset nor the columns tell, or the task refuses it."""
    name = config.task.name or preset_task(config.dataset.source)
    if name is None:
        name = task_of_split(resolve_source(config.dataset.source), ObjectStore(storage=config.storage))
    spec = task(name)
    options = spec.options(config.task.options)
    generation = config.generation.model_copy(
        update={"prompt_version": qualified_version(config.generation.prompt_version, name)})
    chosen = config.model_copy(update={
        "task": TaskConfig(name=name, options=options.model_dump(mode="json") if options is not None else {}),
        "generation": generation,
        # Reduction@P is LintEval's: another task's models rank by Pass@1.
        "rank_by": config.rank_by if name == LINTEVAL_TASK else "pass_at_1"})
    spec.check_run(chosen)
    return chosen


def task_of_split(url: str, store: ObjectStore) -> str:
    """The one registered task that recognises the split's columns."""
    columns = split_columns(url, store)
    matching = [spec.name for spec in tasks() if spec.recognizes(columns)]
    if len(matching) != 1:
        found = ", ".join(sorted(columns)[:12]) or "none"
        which = f"tasks {', '.join(matching)} all" if matching else "no task"
        raise ConfigError(f"{url}: {which} recognise its columns ({found}): set task.name "
                          f"(--set task=NAME; known: {', '.join(spec.name for spec in tasks())})")
    return matching[0]


def run_task(config: RunConfig) -> Task:
    """The task of a resolved config."""
    return task(config.task.name or LINTEVAL_TASK)


def task_options(config: RunConfig) -> BaseModel | None:
    return run_task(config).options(config.task.options)


def identity_in_background(config: RunConfig, url: str) -> Future[SourceDigest]:
    """The split's identity (the task decides how: LintEval hashes its file; CodeContests-O asks the
    store, ``load/identity.py``), on a thread while Ray starts."""
    store = ObjectStore(storage=config.storage)
    return run_task(config).identity_in_background(split_files(url, store), store, task_options(config))


def task_fingerprint(config: RunConfig) -> dict[str, object] | None:
    """What of the task the run fingerprint covers: nothing for LintEval (its fingerprint is what it
    always was), else its name and options."""
    if run_task(config).name == LINTEVAL_TASK:
        return None
    return {"name": config.task.name, "options": config.task.options}
