"""The contract every generation backend implements.

A backend gives the pipeline one ``Stage``: input rows (``linteval_ray.schema.rows.InputRow``
columns, plus any others, which are kept) in, the same rows with the ``Generation`` columns
added out. It also names the model and the prompt version it used, for the manifest and
every result row. A failure on one row is that row's ``generation_error``; it never fails
the job.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import ClassVar

import pyarrow as pa

from linteval_ray.errors import LintEvalError
from linteval_ray.generate.sampling import EffectiveSampling
from linteval_ray.schema.result import FinishReason
from linteval_ray.schema.rows import Generation, generation_schema
from linteval_ray.stage import Stage


class GenerationUnavailable(LintEvalError):
    """Generation can never run as configured (no GPU for the engines, no model, no server)."""


class GenerationBackend(ABC):
    """Turns prompt rows into response rows through the ``Stage`` it builds."""

    name: ClassVar[str]

    @property
    @abstractmethod
    def prompt_version(self) -> str | None:
        """``v1@<digest>``: the versioned prompt sent to the model; None if no prompt of ours was used."""

    @abstractmethod
    def stage(self) -> Stage:
        """The pipeline stage adding the generation columns to every row."""

    def model_name(self) -> str:
        return self.name

    @property
    def runs_in_validation_actor(self) -> bool:
        """True: the stage is a light function needing nothing of its own (no GPU, no connection
        pool), so ``run`` runs it inside the validation actor instead of as an operator with
        Python workers of its own. False by default: a model's engines or clients stay apart."""
        return False

    def preflight(self) -> None:
        """Raise ``GenerationUnavailable`` now when generation can never run (called once Ray is up,
        before any row is sent), so a run fails in one line instead of waiting or erroring per row.
        Nothing to check by default (replay needs no model)."""
        return

    def probe(self) -> list[str]:
        """Warnings from checking, by generating, that the model is the one asked for (the LoRA
        probe); recorded in the manifest, fatal under ``--strict``. None by default."""
        return []

    def effective_sampling(self) -> EffectiveSampling | None:
        """The sampling parameters every request carries, once known (the vllm backend reads the model's
        defaults inside ``engines()``), for the manifest; None: the backend samples nothing (replay)."""
        return None

    @contextmanager
    def engines(self) -> Iterator[None]:
        """What the stage's engines hold (vLLM: their GPUs, reserved with a deadline) for the body of a
        ``with`` block, released at its end, errors included. The stage runs inside it. Nothing by default."""
        yield


def failed(error: str, model: str, prompt_tokens: int | None = None) -> Generation:
    """The generation columns of a row that got no response."""
    return Generation(generation_error=error, model=model, finish_reason=FinishReason.ERROR.value,
                      prompt_tokens=prompt_tokens)


def with_generation_columns(batch: pa.Table, values: Sequence[Generation]) -> pa.Table:
    """``batch`` plus the generation columns (replacing any of that name), typed by the one
    generation schema, so that a batch whose values are all None has the same schema as every other."""
    for field in generation_schema():
        column = pa.array([getattr(v, field.name) for v in values], type=field.type)
        index = batch.schema.get_field_index(field.name)
        batch = batch.set_column(index, field, column) if index >= 0 else batch.append_column(field, column)
    return batch
