"""The stage model: every step of the pipeline is a ``Stage``, and a pipeline is a list of them.

After Ray's ``ray.llm._internal.batch.stages.StatefulStage``: a stage names its callable,
the callable's constructor kwargs and the ``map_batches`` kwargs Ray Data runs it with,
the input columns it needs (checked on every batch, so a miswired pipeline fails naming
the stage and the column instead of with a ``KeyError`` deep in a worker), and the Arrow
schema of the columns it writes (from ``linteval_ray.schema``). ``check_chain`` checks a
whole list against the input columns before anything runs.

A ``BatchStage`` is one ``map_batches``; a ``ProcessorStage`` wraps a chain Ray already
composed (``ray.data.llm``'s processor, itself a list of Ray's stateful stages); a
``FusedStage`` runs several ``BatchStage``s as one ``map_batches`` of the last heavy one
(``fuse``), as Ray fuses tasks of equal resources, but also across an actor pool.
"""

from __future__ import annotations

import functools
import inspect
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pyarrow as pa
from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    import ray.data

CHECK_NUM_CPUS = 0.1  # the column check of a ProcessorStage reads only the batch's schema


class StageInputError(ValueError):
    """A stage's input lacks a column the stage needs: the pipeline is wired wrongly (a bug)."""

    def __init__(self, stage: str, missing: Iterable[str], present: Iterable[str]) -> None:
        super().__init__(
            f"stage {stage!r} needs column(s) {', '.join(repr(c) for c in missing)} that its input lacks "
            f"(it has: {', '.join(present) or 'no columns'})"
        )


class Stage(BaseModel, ABC):
    """What every stage declares; ``apply`` adds it to a Ray Dataset."""

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)

    name: str = Field(description="named in errors and logs")
    required_columns: tuple[str, ...] = Field(default=(), description="input columns checked on every batch")
    output_schema: pa.Schema = Field(description="the columns the stage writes")
    keeps_input_columns: bool = Field(
        default=False, description="True: output = input columns + output_schema; False: output_schema only"
    )

    @abstractmethod
    def apply(self, ds: ray.data.Dataset) -> ray.data.Dataset:
        """``ds`` with this stage added (lazily, as Ray Data does)."""

    def chained_columns(self, input_columns: Sequence[str]) -> list[str]:
        """The columns after this stage given its input's; ``StageInputError`` if one it needs is missing."""
        missing = [c for c in self.required_columns if c not in input_columns]
        if missing:
            raise StageInputError(self.name, missing, input_columns)
        return self.output_columns(input_columns)

    def output_columns(self, input_columns: Sequence[str]) -> list[str]:
        written = self.output_schema.names
        if not self.keeps_input_columns:
            return list(written)
        return [c for c in input_columns if c not in written] + list(written)


class BatchStage(Stage):
    """One ``map_batches`` of ``fn``: a function runs as Ray tasks, a class as a pool of actors
    whose state (a warm validator, an HTTP client) lives across batches."""

    fn: Callable[..., Any]
    fn_constructor_kwargs: dict[str, Any] = Field(default_factory=dict, description="for a class fn")
    fn_kwargs: dict[str, Any] = Field(default_factory=dict, description="passed with every batch")
    map_batches_kwargs: dict[str, Any] = Field(
        default_factory=dict, description="batch_size, batch_format, compute / concurrency, num_cpus, resources, ..."
    )

    def apply(self, ds: ray.data.Dataset) -> ray.data.Dataset:
        kwargs: dict[str, Any] = {**self.map_batches_kwargs, "fn_kwargs": self.fn_kwargs or None}
        if inspect.isclass(self.fn):  # Ray refuses constructor kwargs for a function
            kwargs["fn_constructor_kwargs"] = self.fn_constructor_kwargs
        return ds.map_batches(self.checked_fn(), **kwargs)

    def checked_fn(self) -> Callable[..., Any]:
        """``fn`` checking its input columns first, under ``fn``'s own name (Ray names the
        operator and its actors after it: ``MapBatches(ValidateBatch)``)."""
        if inspect.isclass(self.fn):
            return _checked_class(self.fn, self.name, self.required_columns)
        return _checked_function(self.fn, self.name, self.required_columns)

    def in_process(self) -> Callable[[Any], Any]:
        """The checked callable in this process, without Ray (a class is built with its
        constructor kwargs; the caller owns the instance)."""
        fn = self.checked_fn()
        if inspect.isclass(self.fn):
            instance: Callable[[Any], Any] = fn(**self.fn_constructor_kwargs)
            return instance
        return functools.partial(fn, **self.fn_kwargs)


class ProcessorStage(Stage):
    """A chain of Ray Data operators composed elsewhere (``ray.data.llm``'s processor)."""

    processor: Callable[[Any], Any] = Field(description="Dataset in, Dataset out")

    def apply(self, ds: ray.data.Dataset) -> ray.data.Dataset:
        # A light operator in front: batch_size=None keeps the input's blocks as they are.
        check = functools.partial(_check_columns, stage=self.name, required=self.required_columns)
        checked = ds.map_batches(check, batch_format="pyarrow", batch_size=None, num_cpus=CHECK_NUM_CPUS)
        processed: ray.data.Dataset = self.processor(checked)
        return processed


class FusedStage(Stage):
    """Several ``BatchStage``s as one ``map_batches``: each batch goes through them in turn in one
    process, the host's (its actor pool, CPUs and batch size), so rows cross no operator boundary,
    object store or extra Python worker between them. Each part still checks its input columns on
    every batch; a batch a part leaves empty ends there (nothing later has a row to work on)."""

    parts: tuple[BatchStage, ...] = Field(min_length=1)
    map_batches_kwargs: dict[str, Any] = Field(default_factory=dict, description="the host's")

    def apply(self, ds: ray.data.Dataset) -> ray.data.Dataset:
        return ds.map_batches(self.fused_class(), fn_constructor_kwargs={"parts": self.parts},
                              **self.map_batches_kwargs)

    def fused_class(self) -> type[FusedBatches]:
        """``FusedBatches`` under the parts' names (Ray names the operator and its actors after it:
        ``MapBatches(replay_batch+ValidateBatch+store_batch)``)."""
        name = "+".join(part.checked_fn().__name__ for part in self.parts)
        return type(name, (FusedBatches,), {"__module__": FusedBatches.__module__})

    def chained_columns(self, input_columns: Sequence[str]) -> list[str]:
        columns = list(input_columns)
        for part in self.parts:
            columns = part.chained_columns(columns)
        return columns

    def output_columns(self, input_columns: Sequence[str]) -> list[str]:
        columns = list(input_columns)
        for part in self.parts:
            columns = part.output_columns(columns)
        return columns


class FusedBatches:
    """The callable of a ``FusedStage``: its parts built in this process, applied in turn."""

    def __init__(self, parts: Sequence[BatchStage]) -> None:
        self._steps = [part.in_process() for part in parts]
        self._empty = parts[-1].output_schema.empty_table()

    def __call__(self, batch: pa.Table) -> pa.Table:
        for step in self._steps:
            if batch.num_rows == 0:
                return self._empty
            batch = step(batch)
        return batch


def fuse(name: str, parts: Sequence[BatchStage], host: BatchStage) -> FusedStage:
    """``parts`` (``host`` among them) as one stage running where and as ``host`` runs. Its
    required columns are those a part needs and no earlier part writes."""
    if host not in parts:
        raise ValueError(f"fused stage {name!r}: its host {host.name!r} is not one of its parts")
    required: list[str] = []
    columns: list[str] = []
    for part in parts:
        needed = [c for c in part.required_columns if c not in columns]
        required += [c for c in needed if c not in required]
        columns = part.output_columns([*columns, *needed])
    return FusedStage(name=name, parts=tuple(parts), required_columns=tuple(required),
                      output_schema=parts[-1].output_schema, keeps_input_columns=parts[-1].keeps_input_columns,
                      map_batches_kwargs={**host.map_batches_kwargs, "batch_format": "pyarrow"})


def check_chain(stages: Sequence[Stage], input_columns: Sequence[str]) -> None:
    """Raise ``StageInputError`` for the first stage whose required columns its predecessors
    do not provide, before any batch runs."""
    columns = list(input_columns)
    for stage in stages:
        columns = stage.chained_columns(columns)


def require_columns(batch: Any, stage: str, required: Sequence[str]) -> None:
    """Raise ``StageInputError`` if a non-empty batch lacks one of ``required``. (Ray may hand
    over an empty batch without a schema: it lacks nothing a stage could read.)"""
    if not required or _num_rows(batch) == 0:
        return
    present = _column_names(batch)
    missing = [c for c in required if c not in present]
    if missing:
        raise StageInputError(stage, missing, present)


def _checked_function(fn: Callable[..., Any], stage: str, required: Sequence[str]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def checked(batch: Any, *args: Any, **kwargs: Any) -> Any:
        require_columns(batch, stage, required)
        return fn(batch, *args, **kwargs)

    return checked


def _checked_class(cls: type, stage: str, required: Sequence[str]) -> type:
    """A subclass of ``cls`` of the same name whose ``__call__`` checks the batch first.
    (Built at run time, so cloudpickle ships it by value; ``cls`` itself goes by reference.)"""

    def __call__(self: Any, batch: Any, *args: Any, **kwargs: Any) -> Any:
        require_columns(batch, stage, required)
        return cls.__call__(self, batch, *args, **kwargs)

    return type(cls.__name__, (cls,), {"__call__": __call__, "__doc__": cls.__doc__, "__module__": cls.__module__})


def _check_columns(batch: pa.Table, stage: str, required: Sequence[str]) -> pa.Table:
    require_columns(batch, stage, required)
    return batch


def _column_names(batch: Any) -> list[str]:
    if isinstance(batch, pa.Table):
        return list(batch.column_names)
    if isinstance(batch, Mapping):  # batch_format="numpy": a dict of arrays
        return [str(c) for c in batch]
    return [str(c) for c in batch.columns]  # pandas


def _num_rows(batch: Any) -> int:
    if isinstance(batch, pa.Table):
        return int(batch.num_rows)
    if isinstance(batch, Mapping):
        return len(next(iter(batch.values()))) if batch else 0
    return len(batch)
