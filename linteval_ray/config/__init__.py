"""RunConfig: every knob of a run, as typed, described pydantic models.

Configs are YAML files (see ``configs/``) whose keys mirror these models; CLI flags and
``--set a.b.c=value`` override them. Unknown keys are errors that name the key, so a typo never
silently falls back to a default. ``section.py`` says which settings can change a result (the run
fingerprint) and which are secrets (never recorded).
"""

from linteval_ray.config.generation import (
    EndpointConfig,
    EndpointGeneration,
    GenerationConfig,
    GenerationSettings,
    HealthConfig,
    ModelChoice,
    ReplayConfig,
    ReplayGeneration,
    SamplingConfig,
    VLLMConfig,
    VLLMGeneration,
)
from linteval_ray.config.run import (
    DatasetConfig,
    RayConfig,
    RunConfig,
    StorageConfig,
    TaskConfig,
    dataset_overrides,
    describe_errors,
    load_config,
)
from linteval_ray.config.section import ConfigError
from linteval_ray.config.sets import (
    DEFAULT_RANK_BY,
    MODEL_NAME_PATTERN,
    CheckpointsConfig,
    ModelConfig,
    RankBy,
    TrackingConfig,
)
from linteval_ray.config.validation import PoolConfig, TestLimits, ValidationConfig

__all__ = [
    "DEFAULT_RANK_BY", "MODEL_NAME_PATTERN", "CheckpointsConfig", "ConfigError", "DatasetConfig", "EndpointConfig",
    "EndpointGeneration", "GenerationConfig", "GenerationSettings", "HealthConfig", "ModelChoice",
    "ModelConfig", "PoolConfig", "RankBy", "RayConfig", "ReplayConfig", "ReplayGeneration", "RunConfig",
    "SamplingConfig", "StorageConfig", "TaskConfig", "TestLimits", "TrackingConfig", "VLLMConfig", "VLLMGeneration",
    "ValidationConfig", "dataset_overrides", "describe_errors", "load_config",
]
