"""Generation backends by name, each registered where it is defined.

A backend module (``replay.py``, ``vllm.py``, ``endpoint.py``) ends with ``register_backend(its
generation model, how to build it)``, after Ray's ``ProcessorBuilder.register``: the model
(``config/generation.py``) gives the name and the section, the builder makes the backend of a
config. Importing this package imports every backend module (``__init__.py``), so the registry
is complete wherever a backend is built.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from linteval_ray.config import ConfigError, GenerationSettings, StorageConfig
from linteval_ray.generate.base import GenerationBackend

G = TypeVar("G", bound=GenerationSettings)
Build = Callable[[Any, StorageConfig | None], GenerationBackend]

_BUILDERS: dict[type[GenerationSettings], Build] = {}


def register_backend(generation: type[G], build: Callable[[G, StorageConfig | None], GenerationBackend]) -> None:
    """``build`` makes the backend of a ``generation`` section (``storage``: credentials for what it reads)."""
    _BUILDERS[generation] = build


def registered_backends() -> list[type[GenerationSettings]]:
    return list(_BUILDERS)


def build_backend(generation: GenerationSettings, storage: StorageConfig | None = None) -> GenerationBackend:
    """The backend the generation section names."""
    build = _BUILDERS.get(type(generation))
    if build is None:
        raise ConfigError(f"generation.backend {generation.backend!r} has no implementation registered")
    return build(generation, storage)
