"""The GPU path as users deploy it, on simulated GPU nodes (tests/fixtures/ray_cluster.py ``gpu_cluster``).

A head without GPUs runs Ray's autoscaler v2 over two 2-GPU A10G nodes (up from the start) and a
4-GPU L4 node type at zero. The driver runs in the CPU image's Python (no transformers, torch or
vLLM: tests/fixtures/cpu_image.py), as a run's driver runs on the cluster's head; it does what
``linteval-ray run`` does up to the engine start (tests/cluster/gpu_driver.py). No engine generates
anything: placement is what is checked, on a real Ray.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.ray_cluster import RayCluster

pytestmark = pytest.mark.slow  # a cluster start, and nodes the autoscaler adds

REPO = Path(__file__).resolve().parents[2]


def drive(cluster: RayCluster, python: Path, scenario: str, vllm: dict[str, Any],
          timeout_s: float = 300.0, cwd: Path = REPO, hidden: Path | None = None) -> tuple[dict[str, Any], str]:
    """Run the driver scenario (in ``cwd``; ``hidden``: a folder the driver sees empty, as a volume only the
    GPU nodes mount); its RESULT and its log."""
    config = json.dumps({"backend": "vllm", "vllm": {"placement_timeout_s": 120, **vllm}})
    env = {**cluster.env, "PYTHONPATH": str(REPO), "HOME": os.environ.get("HOME", "/root")}
    # The same filesystem and network, but an empty tmpfs over ``hidden`` (a mount namespace of its own).
    wrap = ["bwrap", "--dev-bind", "/", "/", "--tmpfs", str(hidden), "--"] if hidden else []
    proc = subprocess.run([*wrap, str(python), "-m", "tests.cluster.gpu_driver", scenario, config], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout_s)
    results = [line.removeprefix("RESULT ") for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    assert proc.returncode == 0 and len(results) == 1, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr[-6000:]}"
    result = json.loads(results[0])
    assert result["model_libraries"] == [], "the driver imported a model library"
    return result, proc.stderr


def model_folder(path: Path) -> Path:
    """A model folder as far as the run reads it before an engine starts: its config (a Llama's)."""
    path.mkdir(parents=True, exist_ok=True)
    (path / "config.json").write_text(json.dumps({"model_type": "llama", "architectures": ["LlamaForCausalLM"]}))
    return path


def types_of(result: dict[str, Any], node_id: str) -> list[str]:
    return [t.removeprefix("accelerator_type:") for t in result["nodes"][node_id]["types"]]


def one_node_each(groups: list[dict[str, Any]]) -> list[str]:
    """The node of each group, checking that all its bundles are on that one node, STRICT_PACK."""
    nodes = []
    for group in groups:
        assert group["strategy"] == "STRICT_PACK" and group["state"] == "CREATED", group
        [node] = set(group["bundles_to_node_id"].values())
        nodes.append(node)
    return nodes


def test_no_gpu_node_type_fits_an_h100_engine_one_line(gpu_cluster: RayCluster, cpu_image_python: Path,
                                                       tmp_path: Path) -> None:
    result, _ = drive(gpu_cluster, cpu_image_python, "refused",
                      {"model": str(tmp_path), "accelerator_type": "H100"})
    assert result["error"] == (
        "the vLLM engines of the run cannot be placed: 0 of 1 engine(s) of 1 GPU(s) of accelerator_type H100 on one "
        "node (tensor_parallel_size 1 x pipeline_parallel_size 1) placed and the Ray autoscaler has no node type "
        "that can hold one (the nodes now: they need 1 engine(s) of 1 GPU(s) of accelerator_type H100 on one node "
        "(tensor_parallel_size 1 x pipeline_parallel_size 1) but the Ray cluster's GPUs are A10G (4 GPUs on 2 "
        "nodes))")
    assert result["seconds"] < 60, "the autoscaler's verdict should end the wait"


def test_an_engine_larger_than_every_node_is_refused_never_spread(gpu_cluster: RayCluster, cpu_image_python: Path,
                                                                   tmp_path: Path) -> None:
    """TP=4 on the 2-GPU A10G nodes: the 4 GPUs exist, but not on one node."""
    result, _ = drive(gpu_cluster, cpu_image_python, "refused",
                      {"model": str(tmp_path), "accelerator_type": "A10G",
                       "engine_kwargs": {"tensor_parallel_size": 4}})
    assert result["error"].startswith("the vLLM engines of the run cannot be placed: 0 of 1 engine(s) of 4 GPU(s)")
    assert result["error"].endswith(
        "(the nodes now: each engine needs 4 GPU(s) of accelerator_type A10G on one node (tensor_parallel_size 4 x "
        "pipeline_parallel_size 1) but the largest A10G GPU node has 2 GPU(s) and 4 CPU(s) (one CPU per GPU); an "
        "engine never spans nodes)"), result["error"]


def test_an_adapter_folder_missing_where_the_engine_loads_it_is_one_line(
        gpu_cluster: RayCluster, cpu_image_python: Path, tmp_path: Path) -> None:
    """A relative adapter path exists beside the driver, not on the engine's node (its workers start
    elsewhere): checked in the engine's placement group before any engine starts."""
    (tmp_path / "adapter").mkdir()
    result, _ = drive(gpu_cluster, cpu_image_python, "refused",
                      {"model": str(tmp_path), "lora": "./adapter", "accelerator_type": "A10G"}, cwd=tmp_path)
    [node] = [n for n in result["nodes"] if n in result["error"]]
    assert result["error"] == (f"generation.vllm.lora: ./adapter does not exist on Ray node {node}, where an engine "
                               "loads it (every GPU node needs the same local folders)")
    assert types_of(result, node) == ["A10G"]


def test_weights_mounted_only_on_the_gpu_nodes_are_found_where_the_engines_load_them(
        gpu_cluster: RayCluster, cpu_image_python: Path, tmp_path: Path) -> None:
    """The head (the driver) does not mount the GPU nodes' model volume: the folder is looked for on each
    engine's node, not on the driver, and a folder the nodes lack is named there."""
    model = model_folder(tmp_path / "volume" / "qwen-7b")
    result, _ = drive(gpu_cluster, cpu_image_python, "refused", {"model": str(model), "accelerator_type": "A10G"},
                      hidden=tmp_path / "volume")
    assert (result["model_on_driver"], result["error"]) == (False, None)
    result, _ = drive(gpu_cluster, cpu_image_python, "refused",
                      {"model": str(tmp_path / "volume" / "missing"), "accelerator_type": "A10G"})
    [node] = [n for n in result["nodes"] if n in result["error"]]
    assert result["error"] == (f"generation.vllm.model: {tmp_path / 'volume' / 'missing'} does not exist on Ray "
                               f"node {node}, where an engine loads it (every GPU node needs the same local folders)")
    # A folder there that is no model (no config.json): what its engine would die of, in one line before it starts.
    (tmp_path / "volume" / "empty").mkdir()
    result, _ = drive(gpu_cluster, cpu_image_python, "refused",
                      {"model": str(tmp_path / "volume" / "empty"), "accelerator_type": "A10G"})
    [node] = [n for n in result["nodes"] if n in result["error"]]
    assert result["error"].startswith(f"generation.vllm.model: {tmp_path / 'volume' / 'empty'} on Ray node {node}: "
                                      "vLLM cannot read its configuration (Invalid repository ID or local directory")


def test_a_broken_adapter_fails_the_run_before_any_engine_meets_it(
        gpu_cluster: RayCluster, cpu_image_python: Path, tmp_path: Path) -> None:
    """A truncated weights file kills vLLM's engine on the first LoRA request, and Ray restarted it for the
    same request without end; it is read on the engine's node first, and so is the rank."""
    adapter = tmp_path / "adapter"
    adapter.mkdir()
    (adapter / "adapter_config.json").write_text(json.dumps({"r": 8, "target_modules": ["q_proj"]}))
    (adapter / "adapter_model.safetensors").write_bytes(b"\xff" * 200)
    result, _ = drive(gpu_cluster, cpu_image_python, "refused", {"model": str(tmp_path), "lora": str(adapter)})
    assert result["error"].startswith(f"generation.vllm.lora: {adapter} on Ray node "), result["error"]
    assert ": adapter_model.safetensors does not load (SafetensorError: " in result["error"], result["error"]
    (adapter / "adapter_config.json").write_text(json.dumps({"r": 24, "target_modules": ["q_proj"]}))
    result, _ = drive(gpu_cluster, cpu_image_python, "refused", {"model": str(tmp_path), "lora": str(adapter)})
    assert result["error"].endswith(": its rank 24 exceeds max_lora_rank 16 (set engine_kwargs.max_lora_rank to 32)")


def test_a_bfloat16_adapter_passes_the_check_on_the_engine_s_node(
        gpu_cluster: RayCluster, cpu_image_python: Path, tmp_path: Path) -> None:
    """Most fine-tuning libraries save bfloat16 weights, which NumPy cannot hold: the check reads the
    file's header (dtypes, shapes, offsets against the file), never a tensor."""
    pytest.importorskip("torch")
    from tests.generate.tiny_model import build_lora_adapter

    adapter = build_lora_adapter(tmp_path / "adapter", tmp_path, dtype="bfloat16")
    model = model_folder(tmp_path / "model")
    result, _ = drive(gpu_cluster, cpu_image_python, "refused", {"model": str(model), "lora": str(adapter)})
    assert result["error"] is None


def test_two_tp2_engines_take_one_2_gpu_node_each(gpu_cluster: RayCluster, cpu_image_python: Path,
                                                  tmp_path: Path) -> None:
    result, _ = drive(gpu_cluster, cpu_image_python, "placements",
                      {"model": str(model_folder(tmp_path / "model")), "accelerator_type": "A10G", "replicas": 2,
                       "engine_kwargs": {"tensor_parallel_size": 2}})
    nodes = one_node_each(result["engines"])
    assert len(set(nodes)) == 2 and all(types_of(result, n) == ["A10G"] for n in nodes)
    assert result["engines_after_release"] == ["REMOVED", "REMOVED"]


def test_at_zero_the_run_waits_for_the_autoscaler_and_the_probe_s_gpus_are_freed_first(
        gpu_cluster: RayCluster, cpu_image_python: Path, tmp_path: Path) -> None:
    """The 4-GPU L4 type starts at zero: preflight says the run waits, the autoscaler adds the node, the
    LoRA probe's engine (TP=2) is placed and removed, then both TP=2 engines fit on that one node, which
    they could not while the probe's group held two of its GPUs."""
    result, log = drive(gpu_cluster, cpu_image_python, "probe_then_engines",
                        {"model": str(model_folder(tmp_path / "model")), "accelerator_type": "L4", "replicas": 2,
                         "engine_kwargs": {"tensor_parallel_size": 2}})
    assert ("the vLLM engines do not fit the cluster's nodes now (they need 2 engine(s) of 2 GPU(s) of "
            "accelerator_type L4") in log
    assert "a Ray autoscaler is running, so the run waits up to 120 s (generation.vllm.placement_timeout_s)" in log
    [probe_node] = one_node_each(result["probe"])
    assert result["probe_after_release"] == ["REMOVED"]
    nodes = one_node_each(result["engines"])
    assert nodes == [probe_node, probe_node] and types_of(result, probe_node) == ["L4"]
    assert result["nodes"][probe_node]["gpus"] == 4
    assert result["engines_after_release"] == ["REMOVED", "REMOVED"]


def test_the_stage_runs_a_fixed_pool_one_engine_per_group_and_tokenizes_on_generation_nodes(
        gpu_cluster: RayCluster, cpu_image_python: Path, tiny_model: Path) -> None:
    """The whole generation stage, built by a driver without model libraries, run until its engine
    actors are placed: both (a fixed pool of replicas: an autoscaling one starts one engine and adds the
    next only once the first is up, which never happens here), each in its own group on that group's
    node, and PromptFit on a node advertising `generation` (the head, the CPU image's role, has none)."""
    result, _ = drive(gpu_cluster, cpu_image_python, "stage",
                      {"model": str(tiny_model), "accelerator_type": "A10G", "replicas": 2,
                       "engine_kwargs": {"tensor_parallel_size": 2, "max_model_len": 4096}})
    # Engine calls in flight per engine (1024 rows / batch_size 16) through the pool's named parameter;
    # only what Ray 2.60 names no parameter for is a remote arg (Ray 2.64 drops them from the public API).
    assert result["engine_pool"] == {"min_size": 2, "max_size": 2, "calls_per_engine": 64,
                                     "remote_args": ["max_restarts", "num_cpus", "num_gpus"]}
    assert "engine_groups" in result, f"the stage's actors were not all placed: {result.get('seen')}"
    nodes = {g["id"]: one_node_each([g])[0] for g in result["groups"]}
    assert len(set(nodes.values())) == 2 and all(types_of(result, n) == ["A10G"] for n in nodes.values())
    assert sorted(result["engine_groups"]) == sorted(nodes), "not one engine actor in each group"
    for actor in result["prompt_fit"]:
        assert actor["resources"].get("generation") and result["nodes"][actor["node_id"]]["generation"], actor
