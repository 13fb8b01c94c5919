"""``check_cluster_toolchain``: fail a job at its start when a node lacks a tool or a language plugin.

Every validation actor discovers the toolchain of its own node; a node without one
would otherwise turn each of its rows into an infrastructure error. The preflight
runs ``Toolchain.discover`` once on every alive node (a zero-CPU task pinned there,
so it also reaches a head that advertises no CPUs) and raises ONE ``ToolchainError``
naming each failing node, its missing tools and the commands to run there, or, in one line,
the language plugin (``$LINTEVAL_RAY_LANGUAGES``) it cannot import and how to ship it.

Ray is imported when the check runs: the rest of the toolchain package stays light.
"""

from __future__ import annotations

import importlib
import socket
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from linteval_ray.errors import LintEvalError
from linteval_ray.languages.registry import PLUGINS_ENV, plugin_modules
from linteval_ray.toolchain.discover import Toolchain, ToolchainError

PREFLIGHT_TIMEOUT_S = 300.0  # a node starting a worker process on a loaded machine can take a while


class NodeToolchain(BaseModel):
    """What one node's Python environment found (``problem`` is None when every tool is there)."""

    node_id: str
    address: str
    hostname: str
    python: str
    prefix: str | None = None
    problem: str | None = None


class AliveNode(BaseModel):
    node_id: str
    address: str


def discover_on_this_node(plugins: Sequence[str]) -> NodeToolchain:
    """Runs on the node under test, in its worker's environment (its sys.prefix, its variables):
    the language plugins the driver loaded must import here too (one line when one does not)."""
    import ray

    context = ray.get_runtime_context()
    address = ray.util.get_node_ip_address()  # type: ignore[no-untyped-call]  # ray leaves it untyped
    here = {"node_id": context.get_node_id(), "address": address, "hostname": socket.gethostname(),
            "python": sys.executable}
    for module in plugins:
        if (problem := plugin_problem(module)) is not None:
            return NodeToolchain(**here, problem=problem)
    try:
        toolchain = Toolchain.discover()
    except LintEvalError as exc:  # a missing tool, or a plugin its own variable names that is not here
        return NodeToolchain(**here, problem=str(exc))
    return NodeToolchain(**here, prefix=str(toolchain.prefix))


def plugin_problem(module: str) -> str | None:
    """Why language plugin ``module`` cannot be used on this node, in one line (None: it can)."""
    try:
        importlib.import_module(module).SPEC  # noqa: B018 - what the registry reads
    except Exception as exc:  # noqa: BLE001 - whatever the import raised is this node's problem
        first = (str(exc).splitlines() or [""])[0]
        return (f"cannot import language plugin {module} ({PLUGINS_ENV}): {type(exc).__name__}: {first}; ship it "
                "with the job (runtime env py_modules or working_dir) or install it in the node's image")
    return None


def alive_nodes(required_resources: Mapping[str, float] | None = None) -> list[AliveNode]:
    """Alive nodes, only those advertising every key of ``required_resources`` when given."""
    import ray

    wanted = set(required_resources or {})
    return [
        AliveNode(node_id=node["NodeID"], address=node["NodeManagerAddress"])
        for node in ray.nodes()  # type: ignore[no-untyped-call]  # ray leaves it untyped
        if node["Alive"] and wanted <= set(node.get("Resources", {}))
    ]


def probe_nodes(nodes: list[AliveNode], timeout_s: float, plugins: Sequence[str] = ()) -> list[NodeToolchain]:
    """One pinned task per node; a node whose task fails or never answers is a problem too."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    if not nodes:
        return []
    remote_discover = ray.remote(num_cpus=0, max_retries=0)(discover_on_this_node)
    refs = [
        remote_discover.options(
            scheduling_strategy=NodeAffinitySchedulingStrategy(node_id=node.node_id, soft=False)
        ).remote(plugins)
        for node in nodes
    ]
    answered, _ = ray.wait(refs, num_returns=len(refs), timeout=timeout_s)
    return [probe_result(node, ref, ref in answered) for node, ref in zip(nodes, refs, strict=True)]


def probe_result(node: AliveNode, ref: Any, answered: bool) -> NodeToolchain:
    import ray

    def problem(text: str) -> NodeToolchain:
        return NodeToolchain(node_id=node.node_id, address=node.address, hostname="?", python="?", problem=text)

    if not answered:
        ray.cancel(ref, force=True)
        return problem("the toolchain probe did not answer (is the node overloaded or gone?)")
    try:
        result: NodeToolchain = ray.get(ref)
    except Exception as exc:  # noqa: BLE001 - any failure of the probe task is that node's problem
        return problem(f"the toolchain probe failed (is linteval-ray installed there?): {exc}")
    return result


def failing_nodes_error(failing: list[NodeToolchain], checked: int) -> ToolchainError:
    lines = [f"the toolchain is incomplete on {len(failing)} of {checked} Ray nodes; "
             "run the commands below on each node named, then resubmit:"]
    for node in failing:
        lines.append(f"node {node.address} (node id {node.node_id}, host {node.hostname}, python {node.python}):")
        lines += [f"  {line}" for line in (node.problem or "").splitlines()]
    return ToolchainError("\n".join(lines))


def check_cluster_toolchain(
    required_resources: Mapping[str, float] | None = None, timeout_s: float = PREFLIGHT_TIMEOUT_S,
    plugins: Sequence[str] | None = None,
) -> list[NodeToolchain]:
    """Discover the toolchain on every alive node of the connected cluster (``ray.init`` first).

    ``required_resources`` (e.g. the validation pool's ``{"validation": 1}``) limits the check to
    the nodes that can host that work; ``plugins`` (default: the modules this process's
    ``$LINTEVAL_RAY_LANGUAGES`` names) must import on each. Returns each node's result; raises one
    ``ToolchainError`` naming every node that lacks a tool or a plugin.
    """
    nodes = alive_nodes(required_resources)
    results = probe_nodes(nodes, timeout_s, plugin_modules() if plugins is None else plugins)
    failing = [result for result in results if result.problem is not None]
    if failing:
        raise failing_nodes_error(failing, checked=len(results))
    return results

