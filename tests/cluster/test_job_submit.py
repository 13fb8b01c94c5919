"""``ray job submit`` on a real two-node Ray cluster (tests/fixtures/ray_cluster.py).

The head advertises ``generation``, the worker node ``validation``: a job that asks
for ``validation`` must run there, and a pipeline run whose validation pool asks for
it must validate every sample on the worker node.
"""

from __future__ import annotations

import json
import re
import shlex
import textwrap
from pathlib import Path

import pytest
import yaml

from tests.fixtures.ray_cluster import RayCluster

pytestmark = pytest.mark.slow  # a cluster start is ~30-60 s on 2 cores

SMOKE_JOB = textwrap.dedent(
    """
    import json, os, ray

    ray.init()

    @ray.remote(num_cpus=1, resources={"validation": 1})
    class Probe:
        def where(self):
            return {"node_id": ray.get_runtime_context().get_node_id(), "pid": os.getpid()}

    probe = Probe.remote()
    print("PROBE " + json.dumps(ray.get(probe.where.remote())))
    print("DRIVER_NODE " + ray.get_runtime_context().get_node_id())
    """
)


def _tagged(logs: str, tag: str) -> str:
    lines = [line.removeprefix(tag + " ") for line in logs.splitlines() if line.startswith(tag + " ")]
    assert len(lines) == 1, f"expected one {tag} line in the job logs:\n{logs}"
    return lines[0]


def test_job_with_validation_resource_runs_on_the_worker_node(ray_cluster: RayCluster, tmp_path: Path) -> None:
    (tmp_path / "smoke.py").write_text(SMOKE_JOB)

    status, logs = ray_cluster.submit(["python", "smoke.py"], working_dir=tmp_path,
                                      runtime_env={"env_vars": {"LINTEVAL_SMOKE": "1"}})

    assert status == "SUCCEEDED", logs
    probe = json.loads(_tagged(logs, "PROBE"))
    assert probe["node_id"] in ray_cluster.worker_node_ids
    assert _tagged(logs, "DRIVER_NODE") == ray_cluster.head_node_id
    # The state API still knows the (now dead) actor's pid and node: the pipeline test
    # relies on this to place result rows' workers.
    probes = [a for a in ray_cluster.actors() if a["class_name"] == "Probe" and a.get("pid") == probe["pid"]]
    assert [a["node_id"] for a in probes] == [probe["node_id"]]


def test_failing_entrypoint_is_reported_as_failed(ray_cluster: RayCluster, tmp_path: Path) -> None:
    status, logs = ray_cluster.submit(["python", "-c", "raise SystemExit('boom-from-job')"], working_dir=tmp_path)

    assert status == "FAILED"
    assert "boom-from-job" in logs


REPO = Path(__file__).resolve().parents[2]
PIPELINE_CONFIG = textwrap.dedent(
    """
    dataset:
      source: bundled
    generation:
      backend: replay
    validation:
      pool:
        min_actors: 1
        max_actors: 2
        num_cpus: 1
        batch_size: 2
        store_batch_size: 2
        resources: {validation: 1}
    """
)
SAMPLES = 4


def readme_submit_options() -> list[str]:
    """The ``ray job submit`` options of the README's Cluster section (before ``-- linteval-ray run``)."""
    section = (REPO / "README.md").read_text().split("## Cluster", 1)[1].split("\n## ", 1)[0]
    match = re.search(r"`ray job submit (.*?) -- linteval-ray run", section, flags=re.S)
    assert match, "the README's Cluster section shows no `ray job submit ... -- linteval-ray run` command"
    return shlex.split(" ".join(match.group(1).split()))


def test_pipeline_job_validates_every_sample_once_on_the_worker_node(ray_cluster: RayCluster, tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    config, output = tmp_path / "cluster-test.yaml", tmp_path / "run"
    config.write_text(PIPELINE_CONFIG)

    # The README's command, from the checkout (`--working-dir . --runtime-env cluster/runtime-env.yaml`),
    # to nodes started without any toolchain variable: each finds its environment's toolchain.
    options = readme_submit_options()
    assert options == ["--working-dir", ".", "--runtime-env", "cluster/runtime-env.yaml"], options
    assert "LINTEVAL_TOOLCHAIN_DIR" not in ray_cluster.env
    status, logs = ray_cluster.submit(
        ["linteval-ray", "run", "--config", str(config), "--output", str(output), "--set", f"dataset.limit={SAMPLES}"],
        options=options, cwd=REPO, timeout_s=1200,
    )

    assert status == "SUCCEEDED", logs[-5000:]
    # Not a terminal: our progress is a log line per interval, and Ray Data's own progress report (a
    # block of nine lines every 10 s) is off. What Ray Data logs otherwise still comes through.
    assert re.search(rf"validated {SAMPLES}/{SAMPLES} rows \(", logs), logs[-5000:]
    assert "Running Dataset" not in logs and "Total Progress" not in logs, logs[-5000:]
    assert "Starting execution of Dataset" in logs, logs[-5000:]
    rows = pq.read_table(output / "results.parquet").to_pylist()
    metrics = json.loads((output / "metrics.json").read_text())
    sample_ids = [r["sample_id"] for r in rows]
    assert len(sample_ids) == SAMPLES and len(set(sample_ids)) == SAMPLES, sample_ids
    assert metrics["n_samples"] == SAMPLES
    assert metrics["statuses"] == {s: sum(r["status"] == s for r in rows) for s in {r["status"] for r in rows}}
    assert metrics["overall"]["n_passed"] == sum(bool(r["pass_at_1"]) for r in rows)
    for language, group in metrics["by_language"].items():
        assert group["n"] == sum(r["language"] == language for r in rows)

    node_of_pid = {a["pid"]: a["node_id"] for a in ray_cluster.actors() if a.get("pid")}
    workers = {r["worker"] for r in rows}
    for worker in workers:
        pid = int(worker.rsplit(":", 1)[1])
        assert node_of_pid.get(pid) in ray_cluster.worker_node_ids, (worker, node_of_pid)


SET_UP_ONCE_CONFIG = textwrap.dedent(
    """
    dataset:
      source: bundled
      problem_ids: [lr01]
    generation:
      backend: replay
    validation:
      cache_url: {shared}
      pool:
        min_actors: 2
        max_actors: 2
        num_cpus: 1
        batch_size: 2
        store_batch_size: 2
    """
)


@pytest.mark.timeout(1800)  # a cold cache: every tool, test set and answer is built here
def test_each_problem_s_tools_are_compiled_once_across_both_nodes(ray_cluster: RayCluster, tmp_path: Path) -> None:
    """Two validation actors, one per node (Ray Data spreads an actor pool), share a problem
    whose 4 samples (3 languages) fill two batches of 2, validated at the same time: the
    manifest's counts, summed over both actors, show each testlib tool compiled once (the
    other actor waited for it or found it).

    Known vs inferred: both nodes run on this one machine, so their node-local cache folders
    would be one folder; the job points every node at a fresh one (``LINTEVAL_CACHE_DIR``) and
    at a shared tier, as a cluster on object storage gets by default."""
    import pyarrow.parquet as pq

    config, output, shared = tmp_path / "once.yaml", tmp_path / "run", tmp_path / "shared-cache"
    config.write_text(SET_UP_ONCE_CONFIG.format(shared=json.dumps(str(shared))))
    runtime_env = yaml.safe_load((REPO / "cluster" / "runtime-env.yaml").read_text())
    runtime_env["env_vars"]["LINTEVAL_CACHE_DIR"] = str(tmp_path / "node-cache")  # cold: nothing compiled yet
    status, logs = ray_cluster.submit(
        ["linteval-ray", "run", "--config", str(config), "--output", str(output)],
        options=["--working-dir", ".", "--runtime-env-json", json.dumps(runtime_env)], cwd=REPO, timeout_s=1200,
    )

    assert status == "SUCCEEDED", logs[-5000:]
    rows = pq.read_table(output / "results.parquet").to_pylist()
    assert len(rows) == 4 and {r["problem_id"] for r in rows} == {"lr01"}
    node_of_pid = {a["pid"]: a["node_id"] for a in ray_cluster.actors() if a.get("pid")}
    nodes = {node_of_pid.get(int(r["worker"].rsplit(":", 1)[1])) for r in rows}
    assert nodes == {ray_cluster.head_node_id, *ray_cluster.worker_node_ids}, "validation did not span both nodes"

    records = [json.loads(line) for line in (REPO / "linteval_ray/load/bundled/linteval_bundled.jsonl").open()]
    tools = {r[tool] for r in records if r["problem_id"] == "lr01"
             for tool in ("generator", "validator", "checker")}
    cache = json.loads((output / "manifest.json").read_text())["cache"]
    assert cache["tool"]["misses"] == len(tools), cache  # one compile per tool, cluster-wide
    assert cache["tool"]["puts"] == 2 * len(tools), cache  # its artifact folder and its metadata
    assert cache["lint"]["misses"] == len(rows), cache  # each original linted once
