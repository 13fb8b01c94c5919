"""Generation that can never run fails at once, in one line: no GPU for the engines, no model."""

from __future__ import annotations

from pathlib import Path

import pytest

from linteval_ray.config import ConfigError, GenerationConfig
from linteval_ray.generate.base import GenerationUnavailable
from linteval_ray.generate.vllm import VLLMBackend, missing_gpus


def vllm_config(model: str, **vllm: object) -> GenerationConfig:
    return GenerationConfig(backend="vllm", vllm={"model": model, **vllm})


def test_engines_asking_for_gpus_on_a_cluster_without_any_fail_at_once(local_ray: None, tmp_path: Path) -> None:
    backend = VLLMBackend(vllm_config(str(tmp_path), engine_kwargs={"tensor_parallel_size": 2}))
    expected = r"need 2 GPU\(s\) .* the Ray cluster has 0.*cpu_only=true.*--endpoint"
    with pytest.raises(GenerationUnavailable, match=expected):
        backend.preflight()


def test_cpu_only_engines_and_an_opt_out_skip_the_gpu_check(local_ray: None, tmp_path: Path) -> None:
    VLLMBackend(vllm_config(str(tmp_path), cpu_only=True)).preflight()
    VLLMBackend(vllm_config(str(tmp_path), check_resources=False)).preflight()


def test_the_accelerator_type_must_be_in_the_cluster() -> None:
    resources = {"CPU": 16.0, "GPU": 8.0, "accelerator_type:A10G": 1.0}
    assert missing_gpus(resources, per_engine=4, replicas=2, accelerator_type=None) == ""
    assert "has 8" in missing_gpus(resources, per_engine=4, replicas=3, accelerator_type=None)
    assert missing_gpus(resources, per_engine=1, replicas=1, accelerator_type="H100") == (
        "they need GPUs of accelerator_type H100 but the Ray cluster has A10G")


def test_a_model_folder_that_does_not_exist_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"generation.vllm.model: .*/nope does not exist"):
        VLLMBackend(vllm_config(str(tmp_path / "nope")))
    VLLMBackend(vllm_config("Qwen/Qwen2.5-Coder-7B-Instruct"))  # hub ids are not paths
    VLLMBackend(vllm_config("gpt2"))
    VLLMBackend(vllm_config("s3://bucket/models/qwen/"))
