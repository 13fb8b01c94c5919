"""The toolchain preflight on the real multi-node cluster (tests/fixtures/ray_cluster.py).

Nodes started from a plain shell find the toolchain their Python environment installed;
a node whose toolchain folder is empty fails the check with one error naming that node,
its missing tools and the command to run there.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from linteval_ray.toolchain.discover import PREFIX_ENV, environment_prefix, recorded_prefix
from tests.fixtures.ray_cluster import ExtraNode, RayCluster, start_extra_node, stop_node

pytestmark = pytest.mark.slow  # a cluster start is ~30-60 s on 2 cores

PREFLIGHT_JOB = textwrap.dedent(
    """
    import json, ray
    from linteval_ray.toolchain import ToolchainError
    from linteval_ray.toolchain.cluster import check_cluster_toolchain

    ray.init()
    try:
        results = check_cluster_toolchain()
    except ToolchainError as exc:
        print("PREFLIGHT_ERROR " + json.dumps(str(exc)))
        raise SystemExit(3)
    print("PREFLIGHT_OK " + json.dumps([r.model_dump() for r in results]))
    """
)


def _tagged(logs: str, tag: str) -> Any:
    lines = [line.removeprefix(tag + " ") for line in logs.splitlines() if line.startswith(tag + " ")]
    assert len(lines) == 1, f"expected one {tag} line in the job logs:\n{logs}"
    return json.loads(lines[0])


def _submit_preflight(cluster: RayCluster, tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "preflight.py").write_text(PREFLIGHT_JOB)
    status, logs = cluster.submit(["python", "preflight.py"], working_dir=tmp_path)
    return status, logs


def test_every_node_started_from_a_plain_shell_finds_its_toolchain(ray_cluster: RayCluster, tmp_path: Path) -> None:
    assert PREFIX_ENV not in ray_cluster.env

    status, logs = _submit_preflight(ray_cluster, tmp_path)

    assert status == "SUCCEEDED", logs
    results = _tagged(logs, "PREFLIGHT_OK")
    assert {r["node_id"] for r in results} == {ray_cluster.head_node_id, *ray_cluster.worker_node_ids}
    # The environment's own prefix (this venv's), not a variable and not the uploaded working dir.
    assert {r["prefix"] for r in results} == {str(recorded_prefix() or environment_prefix())}


@pytest.fixture
def node_without_toolchain(ray_cluster: RayCluster, tmp_path: Path) -> Iterator[tuple[ExtraNode, Path]]:
    """A third node whose toolchain folder is empty (as a node where nobody ran the install)."""
    empty = tmp_path / "empty-toolchain"
    empty.mkdir()
    node = start_extra_node(ray_cluster, {PREFIX_ENV: str(empty)})
    try:
        yield node, empty
    finally:
        stop_node(ray_cluster, node)


def test_a_node_lacking_tools_fails_the_check_with_one_error_naming_it(
    ray_cluster: RayCluster, node_without_toolchain: tuple[ExtraNode, Path], tmp_path: Path
) -> None:
    node, empty = node_without_toolchain

    status, logs = _submit_preflight(ray_cluster, tmp_path)

    assert status == "FAILED", logs
    message: str = _tagged(logs, "PREFLIGHT_ERROR")
    assert message.startswith("the toolchain is incomplete on 1 of 3 Ray nodes"), message
    assert f"node id {node.node_id}," in message
    assert ray_cluster.head_node_id not in message
    assert not any(worker in message for worker in ray_cluster.worker_node_ids)
    for tool in ("pmd", "testlib"):
        assert f"    {tool}: missing; install with: linteval-ray toolchain install --prefix {empty}" in message
