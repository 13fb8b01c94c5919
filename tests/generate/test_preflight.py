"""Generation that can never run fails at once, in one line: no GPU for the engines, no model.

The placement arithmetic (each engine's GPUs on one node) is checked on node shapes here; the
same checks on a real multi-node cluster with simulated GPU nodes are in
tests/cluster/test_gpu_placement.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from linteval_ray.config import VLLMGeneration
from linteval_ray.generate.base import GenerationUnavailable
from linteval_ray.generate.placement import EngineShape, NodeShape, placement_problem
from linteval_ray.generate.vllm import VLLMBackend


def vllm_config(model: str, **vllm: object) -> VLLMGeneration:
    return VLLMGeneration(vllm={"model": model, **vllm})


def node(name: str, gpus: int, cpus: int = 16, kind: str | None = "A10G") -> NodeShape:
    resources = {"CPU": float(cpus), "GPU": float(gpus), **({f"accelerator_type:{kind}": 1.0} if kind else {})}
    return NodeShape(name=name, resources=resources if gpus else {"CPU": float(cpus)})


def test_engines_asking_for_gpus_on_a_cluster_without_any_fail_at_once(local_ray: None, tmp_path: Path) -> None:
    backend = VLLMBackend(vllm_config(str(tmp_path), engine_kwargs={"tensor_parallel_size": 2}))
    expected = (r"^the vLLM engines cannot be placed: they need 1 engine\(s\) of 2 GPU\(s\) on one node "
                r"\(tensor_parallel_size 2 x pipeline_parallel_size 1\) but the Ray cluster has no GPUs\. "
                r".*cpu_only=true.*--endpoint")
    with pytest.raises(GenerationUnavailable, match=expected):
        backend.preflight()


def test_cpu_only_engines_and_an_opt_out_skip_the_gpu_check(local_ray: None, tmp_path: Path) -> None:
    VLLMBackend(vllm_config(str(tmp_path), cpu_only=True)).preflight()
    VLLMBackend(vllm_config(str(tmp_path), check_resources=False)).preflight()


def test_without_the_check_the_wait_for_gpus_still_ends_in_one_line(local_ray: None, tmp_path: Path) -> None:
    """check_resources: false never hangs: the engines' reservation gives up at placement_timeout_s."""
    backend = VLLMBackend(vllm_config(str(tmp_path), check_resources=False, placement_timeout_s=2))
    expected = (r"^the vLLM engines of the run were not placed within 2 s \(generation.vllm.placement_timeout_s\): "
                r"0 of 1 engine\(s\) of 1 GPU\(s\) on one node .* placed; they need 1 engine\(s\) .* no GPUs$")
    with pytest.raises(GenerationUnavailable, match=expected), backend.engines():
        pass
    from ray.util.placement_group import placement_group_table

    assert all(t["state"] == "REMOVED" for t in placement_group_table().values()), "a group outlived the failure"


def test_each_engine_must_fit_on_one_node() -> None:
    tp4 = EngineShape(tensor_parallel_size=4)
    two_gpu_nodes = [node("a", 2), node("b", 2)]
    assert placement_problem(two_gpu_nodes, tp4, 1) == (
        "each engine needs 4 GPU(s) on one node (tensor_parallel_size 4 x pipeline_parallel_size 1) but the largest "
        "GPU node has 2 GPU(s) and 16 CPU(s) (one CPU per GPU); an engine never spans nodes")
    tp2 = EngineShape(tensor_parallel_size=2)
    assert placement_problem(two_gpu_nodes, tp2, 2) == ""
    assert placement_problem([node("c", 4)], tp2, 2) == ""
    assert placement_problem([node("c", 4), node("d", 3)], tp2, 4) == (
        "they need 4 engine(s) of 2 GPU(s) on one node (tensor_parallel_size 2 x pipeline_parallel_size 1) "
        "but the GPU nodes hold 3 (c: 2, d: 1)")
    # Every GPU worker also takes a CPU: a node with 4 GPUs and 2 CPUs holds one TP=2 engine.
    assert placement_problem([node("e", 4, cpus=2)], tp2, 2).endswith("but the GPU nodes hold 1 (e: 1)")


def test_the_accelerator_type_counts_gpus_on_nodes_of_that_type() -> None:
    nodes = [node("a", 2, kind="A10G"), node("b", 2, kind="A10G"), node("c", 4, kind="L4"), node("cpu", 0)]
    a10g = EngineShape(tensor_parallel_size=2, accelerator_type="A10G")
    assert placement_problem(nodes, a10g, 2) == ""
    assert placement_problem(nodes, a10g, 3).endswith("the A10G GPU nodes hold 2 (a: 1, b: 1)")
    assert placement_problem(nodes, EngineShape(tensor_parallel_size=4, accelerator_type="A10G"), 1).startswith(
        "each engine needs 4 GPU(s) of accelerator_type A10G on one node")
    assert placement_problem(nodes, EngineShape(accelerator_type="H100"), 1) == (
        "they need 1 engine(s) of 1 GPU(s) of accelerator_type H100 on one node (tensor_parallel_size 1 x "
        "pipeline_parallel_size 1) but the Ray cluster's GPUs are A10G (4 GPUs on 2 nodes), L4 (4 GPUs on 1 node)")


def test_a_model_folder_that_does_not_exist_where_the_engine_loads_it_is_one_line(local_ray: None,
                                                                                  tmp_path: Path) -> None:
    """Looked for on the engine's node, in its reserved group, before it starts; not on the driver
    (tests/cluster/test_gpu_placement.py: a driver that does not see the GPU nodes' volume)."""
    import ray

    backend = VLLMBackend(vllm_config(str(tmp_path / "nope"), cpu_only=True))  # nothing is looked for yet
    node = ray.get_runtime_context().get_node_id()
    expected = (f"^generation.vllm.model: {tmp_path / 'nope'} does not exist on Ray node {node}, where an engine "
                r"loads it \(every GPU node needs the same local folders\)$")
    with pytest.raises(GenerationUnavailable, match=expected), backend.engines():
        pass
    VLLMBackend(vllm_config("Qwen/Qwen2.5-Coder-7B-Instruct"))  # hub ids are not paths
    VLLMBackend(vllm_config("gpt2"))
    VLLMBackend(vllm_config("s3://bucket/models/qwen/"))
