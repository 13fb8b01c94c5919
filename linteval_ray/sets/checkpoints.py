"""A checkpoint glob (``--checkpoints 's3://bucket/run/checkpoint-*'``) as models of a set.

Each folder the glob matches (local, ``s3://``, ``gs://``, through the run's ``ObjectStore``) is
one model, named by the folder (``checkpoint-500``), its training step parsed from the name and
the set sorted by step. A folder holding ``adapter_config.json`` is a PEFT LoRA adapter: it runs
on the run's ``generation.vllm.model``, or, when that is unset, on the base model the adapter
names (``base_model_name_or_path``), as a lab's training run left it. Anything else is a full
model folder that vLLM loads itself (ray.data.llm downloads object-store folders to each node).

Training writes a checkpoint's files one after the other, so ``--follow`` evaluates a folder only
once its listing (names and sizes) is the same at two polls in a row: a half-written checkpoint is
never loaded. A single expansion (no ``--follow``) takes every folder holding a model's
``config.json`` or an adapter's ``adapter_config.json``.
"""

from __future__ import annotations

import json
import re

from pydantic import BaseModel

from linteval_ray.config import MODEL_NAME_PATTERN
from linteval_ray.errors import LintEvalError
from linteval_ray.store.fs import ObjectStore, join, scheme_of

ADAPTER_CONFIG = "adapter_config.json"
MODEL_CONFIG = "config.json"
# "checkpoint-500", "step_1200", "global_step300", "epoch2-step900": the number after "step" or
# "checkpoint", else the last number in the name.
_NAMED_STEP = re.compile(r"(?:step|checkpoint|ckpt)[-_]?(\d+)", re.IGNORECASE)
_LAST_NUMBER = re.compile(r"(\d+)(?!.*\d)")


class CheckpointError(LintEvalError):
    """The checkpoint glob cannot be expanded into models (nothing matched, clashing names)."""


class Checkpoint(BaseModel):
    """One checkpoint folder found by the glob."""

    name: str
    url: str
    step: int | None
    adapter: bool  # a LoRA adapter (adapter_config.json) rather than a full model
    base_model: str | None = None  # the adapter's base_model_name_or_path
    lora_rank: int | None = None  # the adapter's r
    listing: tuple[tuple[str, int], ...] = ()  # (file, size): unchanged between polls = written


def step_of(name: str) -> int | None:
    """The training step a checkpoint's name holds (None when it holds no number)."""
    match = _NAMED_STEP.search(name) or _LAST_NUMBER.search(name)
    return int(match.group(1)) if match else None


def find_checkpoints(glob: str, store: ObjectStore) -> list[Checkpoint]:
    """Every folder ``glob`` matches that holds a model or an adapter, sorted by step then name."""
    fs, pattern = store.filesystem(glob)
    scheme = scheme_of(glob)
    found: list[Checkpoint] = []
    for path in sorted(fs.glob(pattern)):
        if not fs.isdir(path):
            continue
        url = fs.unstrip_protocol(path) if scheme else path
        listing = tuple(sorted((str(entry["name"]).rsplit("/", 1)[-1], int(entry.get("size") or 0))
                               for entry in fs.ls(path, detail=True) if entry.get("type") != "directory"))
        files = {name for name, _ in listing}
        if ADAPTER_CONFIG in files:
            adapter = json.loads(store.read_bytes(join(url, ADAPTER_CONFIG)))
            found.append(_checkpoint(url, listing, adapter=True, base_model=adapter.get("base_model_name_or_path"),
                                     lora_rank=adapter.get("r")))
        elif MODEL_CONFIG in files:
            found.append(_checkpoint(url, listing, adapter=False))
    _refuse_clashing_names(glob, found)
    return sorted(found, key=lambda c: (c.step is None, c.step or 0, c.name))


def _checkpoint(url: str, listing: tuple[tuple[str, int], ...], *, adapter: bool, base_model: str | None = None,
                lora_rank: object = None) -> Checkpoint:
    name = url.rstrip("/").rsplit("/", 1)[-1]
    if not re.match(MODEL_NAME_PATTERN, name):
        raise CheckpointError(f"checkpoint {url}: its folder name {name!r} cannot name a model (letters, digits, "
                              ". _ - only); rename it or list it under models:")
    return Checkpoint(name=name, url=url, step=step_of(name), adapter=adapter,
                      base_model=str(base_model) if base_model else None,
                      lora_rank=lora_rank if isinstance(lora_rank, int) else None, listing=listing)


def _refuse_clashing_names(glob: str, found: list[Checkpoint]) -> None:
    seen: dict[str, str] = {}
    for checkpoint in found:
        if checkpoint.name in seen:
            raise CheckpointError(f"--checkpoints {glob}: {seen[checkpoint.name]} and {checkpoint.url} would both be "
                                  f"model {checkpoint.name!r}; use one glob per training run")
        seen[checkpoint.name] = checkpoint.url


class ReadyCheckpoints:
    """``--follow``: checkpoints whose listing did not change since the previous poll."""

    def __init__(self) -> None:
        self._last: dict[str, tuple[tuple[str, int], ...]] = {}

    def ready(self, found: list[Checkpoint]) -> list[Checkpoint]:
        settled = [c for c in found if self._last.get(c.url) == c.listing]
        self._last = {c.url: c.listing for c in found}
        return settled
