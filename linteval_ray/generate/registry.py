"""One registry: backend name → generation stage."""

from __future__ import annotations

from linteval_ray.config import GenerationConfig, StorageConfig
from linteval_ray.generate.base import GenerationStage


def build_stage(cfg: GenerationConfig, storage: StorageConfig | None = None) -> GenerationStage:
    if cfg.backend == "replay":
        from linteval_ray.generate.replay import ReplayStage, load_predictions

        if cfg.replay.predictions is None:
            return ReplayStage()
        return ReplayStage(load_predictions(cfg.replay.predictions, storage))
    if cfg.backend == "vllm":
        from linteval_ray.generate.vllm import VLLMStage

        return VLLMStage(cfg)
    if cfg.backend == "endpoint":
        from linteval_ray.generate.endpoint import EndpointStage

        return EndpointStage(cfg)
    raise ValueError(f"unknown generation backend {cfg.backend!r}")
