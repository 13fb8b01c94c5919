"""A set's models as a lab writes them: config entries, NAME=VALUE flags, a checkpoint glob."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from linteval_ray.cli import _config, build_parser
from linteval_ray.config import ConfigError, load_config
from linteval_ray.sets.checkpoints import CheckpointError, ReadyCheckpoints, find_checkpoints, step_of
from linteval_ray.sets.spec import member_config, members_of
from linteval_ray.store import ObjectStore


def parse(*argv: str):
    args = build_parser().parse_args(["run", *argv])
    return _config(args)


def test_named_flags_make_a_set_in_the_order_given_and_a_single_model_stays_a_single_run():
    config = parse("--model", "base=Qwen/Qwen2.5-Coder-7B-Instruct", "--predictions", "saved=runs/x/answers.jsonl",
                   "--endpoint", "api=http://127.0.0.1:8000/v1", "--model", "api=served-name",
                   "--model", "sft=/models/sft")
    assert config.is_set
    members = {m.name: m for m in members_of(config, [])}
    assert list(members) == ["base", "saved", "api", "sft"]
    assert (members["base"].generation.backend, members["base"].generation.vllm.model) == (
        "vllm", "Qwen/Qwen2.5-Coder-7B-Instruct")
    assert (members["saved"].generation.backend, members["saved"].generation.replay.predictions) == (
        "replay", "runs/x/answers.jsonl")
    api = members["api"].generation
    assert (api.backend, api.endpoint.url, api.endpoint.model) == (
        "endpoint", "http://127.0.0.1:8000/v1", "served-name")
    single = parse("--model", "/models/sft")  # unnamed: today's single run
    assert not single.is_set and single.generation.vllm.model == "/models/sft" and single.generation.backend == "vllm"
    with pytest.raises(SystemExit):
        parse("--model", "/models/a", "--model", "/models/b")  # two unnamed models: name them


def test_a_config_entry_changes_only_what_it_names(tmp_path: Path):
    path = tmp_path / "set.yaml"
    path.write_text("generation:\n  backend: vllm\n  sampling: {temperature: 0.0, max_tokens: 2048}\n"
                    "  vllm: {model: /models/base, engine_kwargs: {max_model_len: 8192}}\n"
                    "models:\n  - name: base\n"
                    "  - name: hot\n    sampling: {temperature: 0.8}\n"
                    "  - name: sft-lora\n    lora: s3://bucket/adapters/sft\n"
                    "  - name: big\n    model: /models/big\n"
                    "    generation: {vllm: {engine_kwargs: {tensor_parallel_size: 2}}}\n")
    members = {m.name: m.generation for m in members_of(load_config(path), [])}
    assert members["base"].vllm.model == "/models/base" and members["base"].sampling.temperature == 0.0
    assert members["hot"].sampling.temperature == 0.8 and members["hot"].sampling.max_tokens == 2048
    assert (members["sft-lora"].vllm.model, members["sft-lora"].vllm.lora) == ("/models/base", "s3://bucket/adapters/sft")
    assert members["big"].vllm.engine_kwargs == {"max_model_len": 8192, "tensor_parallel_size": 2}
    path.write_text("models:\n  - name: a\n    sampling: {temprature: 1}\n")
    with pytest.raises(ConfigError, match=r"model 'a': unknown key 'generation\.sampling\.temprature'"):
        members_of(load_config(path), [])


def test_a_model_of_another_backend_holds_that_backends_section_only(tmp_path: Path):
    path = tmp_path / "set.yaml"
    path.write_text("generation:\n  backend: vllm\n  sampling: {max_tokens: 2048}\n  vllm: {model: /models/base}\n"
                    "models:\n  - name: api\n    endpoint: http://10.0.0.5:8000/v1\n"
                    "    generation: {endpoint: {concurrency: 32}}\n"
                    "  - name: saved\n    predictions: p.jsonl\n")
    members = {m.name: m.generation for m in members_of(load_config(path), [])}
    api = members["api"].model_dump()
    assert (api["backend"], api["endpoint"]["url"], api["endpoint"]["concurrency"]) == (
        "endpoint", "http://10.0.0.5:8000/v1", 32)
    assert "vllm" not in api and api["sampling"]["max_tokens"] == 2048  # the shared settings, not the vLLM section
    assert set(members["saved"].model_dump()) >= {"replay"} and "vllm" not in members["saved"].model_dump()
    path.write_text("models:\n  - name: a\n    predictions: p.jsonl\n    generation: {vllm: {replicas: 2}}\n")
    with pytest.raises(ConfigError, match=r"model 'a': generation: 'vllm' is the section of backend vllm, but "
                       r"generation\.backend is 'replay'"):
        members_of(load_config(path), [])
    path.write_text("models:\n  - name: a\n    predictions: p.jsonl\n    model: /models/x\n")
    with pytest.raises(ConfigError, match=r"model 'a': `model` does not go with backend replay"):
        members_of(load_config(path), [])


def test_a_model_folder_config_is_a_single_runs(tmp_path: Path):
    config = load_config(None, ['models=[{"name": "a", "predictions": "p.jsonl"}]', "baseline=a",
                                'tracking={"log_to": ["mlflow"]}'])
    [member] = members_of(config, [])
    single = member_config(config, member, str(tmp_path / "models" / "a"))
    assert not single.is_set and single.tracking.log_to == [] and single.baseline is None
    assert single.generation.replay.predictions == "p.jsonl" and single.output == str(tmp_path / "models" / "a")


def test_names_must_be_folder_names_and_unique():
    with pytest.raises(ConfigError, match="name"):
        load_config(None, ['models=[{"name": "../escape"}]'])
    with pytest.raises(ConfigError, match="named twice"):
        members_of(load_config(None, ['models=[{"name": "a"}, {"name": "a"}]']), [])


@pytest.mark.parametrize(("name", "step"), [("checkpoint-500", 500), ("global_step1200", 1200), ("step_30", 30),
                                             ("epoch2-step900", 900), ("run-3", 3), ("final", None)])
def test_the_step_is_parsed_from_the_checkpoint_name(name: str, step: int | None):
    assert step_of(name) == step


def _checkpoint(root: Path, name: str, *, adapter: bool = False, rank: int = 8) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    if adapter:
        (folder / "adapter_config.json").write_text(json.dumps({"base_model_name_or_path": "org/base", "r": rank}))
        (folder / "adapter_model.safetensors").write_bytes(b"x" * 10)
    else:
        (folder / "config.json").write_text("{}")
        (folder / "model.safetensors").write_bytes(b"x" * 10)
    return folder


def test_a_checkpoint_glob_is_one_model_per_folder_sorted_by_step(tmp_path: Path):
    run = tmp_path / "run"
    for step in (1000, 200, 30):
        _checkpoint(run, f"checkpoint-{step}")
    (run / "checkpoint-5").mkdir()  # created, nothing written yet: not a model
    (run / "runs").mkdir()
    found = find_checkpoints(str(run / "checkpoint-*"), ObjectStore())
    assert [(c.name, c.step, c.adapter) for c in found] == [
        ("checkpoint-30", 30, False), ("checkpoint-200", 200, False), ("checkpoint-1000", 1000, False)]
    config = load_config(None, ["generation.backend=vllm", f"checkpoints.glob={json.dumps(str(run / 'checkpoint-*'))}"])
    members = members_of(config, found)
    assert [m.generation.vllm.model for m in members] == [str(run / f"checkpoint-{s}") for s in (30, 200, 1000)]


def test_adapter_checkpoints_run_on_the_configured_base_else_on_the_one_they_name(tmp_path: Path):
    _checkpoint(tmp_path / "run", "checkpoint-10", adapter=True, rank=64)
    found = find_checkpoints(str(tmp_path / "run" / "checkpoint-*"), ObjectStore())
    [named] = members_of(load_config(None, []), found)
    assert (named.generation.vllm.model, named.generation.vllm.lora) == ("org/base", found[0].url)
    assert named.generation.vllm.engine_kwargs["max_lora_rank"] == 64  # vLLM refuses r > 16 by default
    [configured] = members_of(load_config(None, ['generation.vllm.model="/models/base"']), found)
    assert configured.generation.vllm.model == "/models/base"


@pytest.mark.parametrize(("rank", "max_lora_rank"), [(24, 32), (300, 320), (8, None)])
def test_an_adapter_s_rank_is_rounded_up_to_a_max_lora_rank_vllm_accepts(tmp_path: Path, rank: int,
                                                                         max_lora_rank: int | None):
    """vLLM takes only some max_lora_ranks (1, 8, 16, 32, ...): 24 would fail at engine start."""
    _checkpoint(tmp_path / "run", "checkpoint-10", adapter=True, rank=rank)
    found = find_checkpoints(str(tmp_path / "run" / "checkpoint-*"), ObjectStore())
    [member] = members_of(load_config(None, []), found)
    assert member.generation.vllm.engine_kwargs.get("max_lora_rank") == max_lora_rank


def test_an_adapter_above_vllm_s_largest_rank_is_one_line(tmp_path: Path):
    _checkpoint(tmp_path / "run", "checkpoint-10", adapter=True, rank=1024)
    found = find_checkpoints(str(tmp_path / "run" / "checkpoint-*"), ObjectStore())
    with pytest.raises(ConfigError, match=r"its rank 1024 is above what vLLM serves \(vLLM's largest max_lora_rank "
                                          r"is 512: this adapter cannot be served\)"):
        members_of(load_config(None, []), found)


def test_two_runs_checkpoints_of_one_name_are_refused(tmp_path: Path):
    _checkpoint(tmp_path / "a", "checkpoint-10")
    _checkpoint(tmp_path / "b", "checkpoint-10")
    with pytest.raises(CheckpointError, match="one glob per training run"):
        find_checkpoints(str(tmp_path / "*" / "checkpoint-*"), ObjectStore())


def test_follow_takes_a_checkpoint_once_its_files_stopped_changing(tmp_path: Path):
    run = tmp_path / "run"
    ready = ReadyCheckpoints()
    _checkpoint(run, "checkpoint-10")
    glob = str(run / "checkpoint-*")
    assert ready.ready(find_checkpoints(glob, ObjectStore())) == []  # first seen
    (run / "checkpoint-10" / "model.safetensors").write_bytes(b"x" * 20)  # still being written
    assert ready.ready(find_checkpoints(glob, ObjectStore())) == []
    assert [c.name for c in ready.ready(find_checkpoints(glob, ObjectStore()))] == ["checkpoint-10"]


def test_the_shipped_set_config_resolves_into_its_models():
    config = load_config(Path(__file__).resolve().parents[2] / "configs" / "finetune-set.yaml")
    assert config.is_set and config.baseline == "base" and config.checkpoints.glob
    members = {m.name: m.generation for m in members_of(config, [])}
    assert {name: g.backend for name, g in members.items()} == {
        "base": "vllm", "sft-lora": "vllm", "sft-full": "vllm", "sft-full-hot": "vllm", "gpt-ish": "endpoint",
        "last-week": "replay"}
    assert members["sft-lora"].vllm.lora and members["sft-full-hot"].sampling.temperature == 0.7
