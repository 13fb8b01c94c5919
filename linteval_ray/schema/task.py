"""What every task's sample record starts with, and how a stage tells a row's task.

A task (``linteval_ray/tasks/``) turns a split's rows into sample records of its own type; every
stage after the read sees a record only as ``record_json``. A task's record names the task in
its FIRST field (``{"task":"codecontests-o",...}``), so any stage tells a row's task from the
start of its JSON without parsing it; a record without it is LintEval's (the LintEval record
predates tasks and is left as it was).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from linteval_ray.schema.record import Language

LINTEVAL_TASK = "linteval"  # the task of a record that names none
_TASK_PREFIX = '{"task":"'


class TaskRecord(BaseModel):
    """The fields every task's record starts with. ``task`` must stay the first field (see the
    module docstring): subclasses add theirs after it."""

    model_config = ConfigDict(extra="forbid")

    task: str = Field(min_length=1, description="the task's name, first in the record's JSON")
    sample_id: str = Field(min_length=1)
    problem_id: str = Field(min_length=1)
    language: Language


def task_of_record_json(record_json: str) -> str:
    """The task a row's ``record_json`` belongs to (``LINTEVAL_TASK`` when it names none)."""
    if not record_json.startswith(_TASK_PREFIX):
        return LINTEVAL_TASK
    end = record_json.find('"', len(_TASK_PREFIX))
    return record_json[len(_TASK_PREFIX):end] if end > 0 else LINTEVAL_TASK
