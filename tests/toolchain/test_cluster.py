"""The cluster preflight on a local Ray (the multi-node case is tests/cluster/test_preflight.py)."""

from __future__ import annotations

import pytest

from linteval_ray.languages.registry import PLUGINS_ENV
from linteval_ray.toolchain import Toolchain, ToolchainError
from linteval_ray.toolchain.cluster import NodeToolchain, check_cluster_toolchain, failing_nodes_error


@pytest.mark.usefixtures("local_ray")
def test_every_alive_node_reports_its_toolchain(toolchain: Toolchain) -> None:
    import ray

    results = check_cluster_toolchain()

    alive = [n["NodeID"] for n in ray.nodes() if n["Alive"]]  # type: ignore[no-untyped-call]  # ray leaves it untyped
    assert [r.node_id for r in results] == alive
    assert all(r.problem is None and r.prefix == str(toolchain.prefix) for r in results)


@pytest.mark.usefixtures("local_ray")
def test_nodes_without_the_required_resources_are_not_checked() -> None:
    assert check_cluster_toolchain({"no-such-resource": 1}) == []


def test_the_error_names_each_failing_node_and_keeps_its_install_commands() -> None:
    failing = NodeToolchain(node_id="abc123", address="10.0.0.7", hostname="worker-7", python="/venv/bin/python",
                            problem="toolchain under /x is incomplete:\n  pmd: missing; install with: CMD")

    error = failing_nodes_error([failing], checked=3)

    assert isinstance(error, ToolchainError)
    lines = str(error).splitlines()
    assert lines[0].startswith("the toolchain is incomplete on 1 of 3 Ray nodes")
    assert lines[1] == "node 10.0.0.7 (node id abc123, host worker-7, python /venv/bin/python):"
    assert lines[2:] == ["  toolchain under /x is incomplete:", "    pmd: missing; install with: CMD"]


@pytest.mark.usefixtures("local_ray")
def test_a_node_that_cannot_import_a_language_plugin_fails_the_preflight_in_one_line(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert [r.problem for r in check_cluster_toolchain(plugins=["tests.languages.c11"])] == [None]
    monkeypatch.setenv(PLUGINS_ENV, "tests.languages.c11,labs_own.golang")  # the driver's: only it has the module
    with pytest.raises(ToolchainError) as refused:
        check_cluster_toolchain()
    lines = str(refused.value).splitlines()
    assert lines[0].startswith("the toolchain is incomplete on 1 of 1 Ray nodes") and len(lines) == 3
    assert lines[2] == ("  cannot import language plugin labs_own.golang (LINTEVAL_RAY_LANGUAGES): "
                        "ModuleNotFoundError: No module named 'labs_own'; ship it with the job (runtime env "
                        "py_modules or working_dir) or install it in the node's image")
