"""Run configs: the shipped YAML files parse, unknown keys are named, overrides win."""

from __future__ import annotations

from pathlib import Path

import pytest

from linteval_ray.config import ConfigError, ModelChoice, load_config

CONFIGS = Path(__file__).resolve().parents[1] / "configs"


@pytest.mark.parametrize("name", ["bundled.yaml", "lite.yaml", "full.yaml"])
def test_shipped_configs_parse(name: str):
    config = load_config(CONFIGS / name)
    assert config.validation.sandbox == "bwrap"


def test_unknown_key_is_an_error_that_names_it(tmp_path: Path):
    path = tmp_path / "c.yaml"
    path.write_text("validation:\n  limits:\n    memory_mbb: 256\n")
    with pytest.raises(ConfigError, match=r"unknown key 'validation\.limits\.memory_mbb'"):
        load_config(path)


def test_wrong_type_names_the_key(tmp_path: Path):
    with pytest.raises(ConfigError, match=r"generation\.n"):
        load_config(None, ["generation.n=many"])


def test_overrides_win_over_the_file(tmp_path: Path):
    path = tmp_path / "c.yaml"
    path.write_text("dataset:\n  limit: 5\n")
    config = load_config(path, ["dataset.limit=7", "validation.pool.resources={validation: 1}"])
    assert config.dataset.limit == 7
    assert config.validation.pool.resources == {"validation": 1.0}


def test_a_max_lora_rank_vllm_refuses_is_a_config_error_naming_the_one_to_use():
    """vLLM takes max_lora_rank 1, 8, 16, 32, ... only: 24 failed at engine start, minutes into a GPU job."""
    with pytest.raises(ConfigError, match=r"^generation\.vllm\.engine_kwargs: Value error, max_lora_rank 24 is not "
                                          r"one vLLM accepts \(1, 8, 16, 32, 64, 128, 256, 320, 512\): use 32, the "
                                          r"smallest that holds rank 24$"):
        load_config(None, ['generation.vllm.engine_kwargs={"max_lora_rank": 24}'])
    assert load_config(None, ['generation.vllm.engine_kwargs={"max_lora_rank": 320}']).generation.vllm.engine_kwargs


def test_override_without_equals_is_rejected():
    with pytest.raises(ConfigError, match="not key=value"):
        load_config(None, ["dataset.limit"])


def test_a_section_of_a_backend_the_run_does_not_use_is_an_error_naming_it(tmp_path: Path):
    path = tmp_path / "c.yaml"
    path.write_text("generation:\n  backend: replay\n  vllm: {model: org/model}\n")
    with pytest.raises(ConfigError, match=r"'vllm' is the section of backend vllm, but generation\.backend is "
                       r"'replay': set generation\.backend: vllm, or remove generation\.vllm") as error:
        load_config(path)
    assert "\n" not in str(error.value)
    with pytest.raises(ConfigError, match=r"the sections of backends vllm and endpoint: set generation\.backend"):
        load_config(None, ['generation.vllm.model="org/model"', 'generation.endpoint.url="http://h/v1"'])
    with pytest.raises(ConfigError, match=r"unknown key 'generation\.vllm\.modle'"):  # the union's tag left out
        load_config(None, ['generation.vllm.modle="org/model"'])


def test_a_lone_section_names_its_backend_and_a_later_choice_sets_the_others_aside():
    assert load_config(None, ['generation.vllm.model="org/model"']).generation.backend == "vllm"
    vllm_file = CONFIGS / "full.yaml"  # backend: vllm with its vllm section
    endpoint = load_config(vllm_file, choice=ModelChoice(endpoint="http://10.0.0.5:8000/v1", model="served"))
    chosen = endpoint.generation.model_dump()
    assert (chosen["backend"], chosen["endpoint"]["url"], chosen["endpoint"]["model"]) == (
        "endpoint", "http://10.0.0.5:8000/v1", "served")
    assert "vllm" not in chosen and chosen["sampling"]["max_tokens"] == 4096  # the file's shared settings kept
    replay = load_config(vllm_file, ["generation.backend=replay"])
    assert set(replay.generation.model_dump()) & {"vllm", "endpoint"} == set()
    with pytest.raises(ConfigError, match=r"generation\.backend is 'endpoint'"):  # given after the choice: an error
        load_config(vllm_file, ["generation.backend=endpoint", "generation.vllm.replicas=2"])
