"""One registry: backend name → generation backend."""

from __future__ import annotations

from linteval_ray.config import GenerationConfig, StorageConfig
from linteval_ray.generate.base import GenerationBackend


def build_backend(cfg: GenerationConfig, storage: StorageConfig | None = None) -> GenerationBackend:
    if cfg.backend == "replay":
        from linteval_ray.generate.replay import ReplayBackend, load_predictions

        if cfg.replay.predictions is None:
            return ReplayBackend()
        return ReplayBackend(load_predictions(cfg.replay.predictions, storage))
    if cfg.backend == "vllm":
        from linteval_ray.generate.vllm import VLLMBackend

        return VLLMBackend(cfg)
    if cfg.backend == "endpoint":
        from linteval_ray.generate.endpoint import EndpointBackend

        return EndpointBackend(cfg)
    raise ValueError(f"unknown generation backend {cfg.backend!r}")
