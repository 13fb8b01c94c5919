"""The pipeline end to end on a real local Ray: local folders, a real S3 server, invalid rows."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from linteval_ray.config import RunConfig, load_config
from linteval_ray.pipeline.run import RunMismatchError, run
from linteval_ray.store import ObjectStore
from linteval_ray.store.folder import RunFolder
from tests.pipeline.samples import bundled_jsonl, expectations, pick, small_mix

VERDICT_OF_KIND = {"clean_fix": "passed", "partial_fix": "passed", "new_alerts": "passed",
                   "fails_tests": "wrong_answer", "no_compile": "compile_error",
                   "no_code": "extraction_failed", "timeout": "time_limit"}

pytestmark = pytest.mark.usefixtures("local_ray")


def _config(output: str, sample_ids: list[str], *overrides: str, source: str = "bundled") -> RunConfig:
    return load_config(None, [f"output={json.dumps(output)}", f"dataset.source={json.dumps(source)}",
                              f"dataset.sample_ids={json.dumps(sample_ids)}", *overrides])


def _results(output: Path) -> list[dict]:
    return pq.read_table(output / "results.parquet").to_pylist()


def test_bundled_subset_end_to_end_into_a_local_folder(tmp_path: Path):
    samples = small_mix()
    outcome = run(_config(str(tmp_path / "out"), samples, "validation.audit_fraction=1.0"))
    out = Path(outcome.output)

    rows = _results(out)
    assert sorted(r["sample_id"] for r in rows) == sorted(samples)  # each sample exactly once
    expected = expectations()
    for row in rows:
        assert row["status"] == "evaluated", row["error"]
        assert row["verdict"] == VERDICT_OF_KIND[expected[row["sample_id"]]["kind"]], row["validation_error"]
        assert row["original_messages"], "originals carry real alerts"
    for name in ("metrics.json", "manifest.json", "report.md", "report.html", "plots/pass_rate_by_language.png"):
        assert (out / name).is_file(), name
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["counts"]["rows"] == len(samples) and manifest["finished_at"]
    assert manifest["toolchain"]["tools"]["pmd"]["version"] == "7.28.0"
    assert manifest["lint_profile"]["name"] == "linteval" and manifest["lint_profile"]["config_id"]
    # Every judged revision (all but the one with no code) went through its fast path and the reference path.
    assert manifest["audit"] == {"audited": 3, "agreed": 3, "disagreed": 0, "disagreeing_rows": []}


def test_lint_agreement_with_the_recorded_alerts_in_rows_metrics_and_report(tmp_path: Path):
    samples = small_mix()
    out = Path(run(_config(str(tmp_path / "out"), samples)).output)
    for row in _results(out):
        # the bundled rows' recorded alerts were made with the default profile: exact agreement
        agreement = row["lint_agreement"]
        assert agreement["recorded"] == agreement["relinted"] == agreement["matched"] > 0, row["sample_id"]
    metrics = json.loads((out / "metrics.json").read_text())
    overall = metrics["lint_agreement"]["overall"]
    assert overall["samples"] == len(samples) and overall["exact_rate"] == 1.0
    assert set(metrics["lint_agreement"]["by_language"]) == {"cpp", "py3", "java"} & {
        r["language"] for r in _results(out)}
    report = (out / "report.md").read_text()
    assert "Lint agreement: the dataset's recorded original alerts vs our re-lint" in report
    assert "Warning" not in report


def test_a_drifting_profile_is_reported_and_warned_about(tmp_path: Path):
    samples = small_mix()
    out = Path(run(_config(str(tmp_path / "out"), samples, "validation.lint_profile=broad")).output)
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["lint_agreement"]["overall"]["exact_rate"] < 0.95
    assert "our re-lint agrees exactly with the recorded alerts" in (out / "report.md").read_text()


def test_metrics_json_equals_a_hand_computation_from_the_shards(tmp_path: Path):
    samples = small_mix()
    out = Path(run(_config(str(tmp_path / "out"), samples)).output)
    rows = [r for shard in sorted((out / "shards").glob("*.parquet")) for r in pq.read_table(shard).to_pylist()]
    passed = [r for r in rows if r["pass_at_1"]]
    alerts_in = sum(r["metrics"]["original_total_messages"] for r in passed)
    alerts_out = sum(r["metrics"]["revised_total_messages"] for r in passed)
    new = sum(r["metrics"]["new_messages_count"] for r in passed)
    changed = sum(r["metrics"]["added_lines"] + r["metrics"]["deleted_lines"] for r in passed)
    fixed = sum(max(0, r["metrics"]["original_total_messages"] - r["metrics"]["revised_total_messages"]
                    + r["metrics"]["new_messages_count"]) for r in passed)

    overall = json.loads((out / "metrics.json").read_text())["overall"]
    assert overall["n"] == len(rows) and overall["n_passed"] == len(passed) > 0
    assert overall["pass_at_1"] == pytest.approx(len(passed) / len(rows))
    assert overall["reduction_at_p"] == pytest.approx((alerts_in - alerts_out) / alerts_in)
    assert overall["new_at_p"] == pytest.approx(new / alerts_in)
    assert overall["delta_line_at_p"] == pytest.approx(changed / len(passed))
    assert overall["line_per_fix_at_p"] == pytest.approx(changed / fixed)


def _verdicts(out: Path) -> dict[str, tuple]:
    return {r["row_id"]: (r["status"], r["verdict"], r["tests_passed"], r["tests_failed"],
                          json.dumps(r["metrics"], sort_keys=True)) for r in _results(out)}


def test_the_default_pool_uses_several_actors_and_gives_the_same_rows_as_one(tmp_path: Path):
    samples = [*small_mix(), pick("timeout")]  # a time limit keeps the first actor busy while others start
    one = run(_config(str(tmp_path / "one"), samples, "validation.pool.max_actors=1",
                      "validation.pool.batch_size=4"))
    # The default pool: min_actors 1, at most one actor per CPU (2 here: the cores + 1 logical CPU).
    grown = run(_config(str(tmp_path / "grown"), samples, "validation.pool.batch_size=1"))
    assert _verdicts(Path(one.output)) == _verdicts(Path(grown.output))
    workers = {r["worker"] for r in _results(Path(grown.output))}
    assert len(workers) >= 2, f"every batch went to one actor: {workers}"


def test_malformed_input_rows_become_named_result_rows(tmp_path: Path):
    good = [json.loads(line) for line in bundled_jsonl().read_text().splitlines()][:1]
    missing_field = {k: v for k, v in good[0].items() if k != "checker"} | {"sample_id": "no_checker"}
    wrong_language = good[0] | {"sample_id": "bad_lang", "language": "rust"}
    source = tmp_path / "input.jsonl"
    source.write_text("\n".join([json.dumps(good[0]), json.dumps(missing_field), "{not json",
                                 json.dumps(wrong_language)]) + "\n")
    out = Path(run(load_config(None, [f"output={json.dumps(str(tmp_path / 'out'))}",
                                      f"dataset.source={json.dumps(str(source))}"])).output)
    rows = {r["sample_id"]: r for r in _results(out)}
    assert len(rows) == 4
    assert rows[good[0]["sample_id"]]["status"] == "evaluated"
    assert rows["no_checker"]["status"] == "invalid_input" and "checker" in rows["no_checker"]["error"]
    assert rows["bad_lang"]["status"] == "invalid_input" and "language" in rows["bad_lang"]["error"]
    invalid_json = [r for sid, r in rows.items() if sid.startswith("#row-3")]
    assert invalid_json and invalid_json[0]["status"] == "invalid_input"
    assert json.loads((out / "metrics.json").read_text())["excluded"] == 3


def test_a_folder_holding_another_run_is_refused(tmp_path: Path):
    samples = small_mix()[:1]
    output = str(tmp_path / "out")
    run(_config(output, samples))
    with pytest.raises(RunMismatchError, match="choose a new output folder"):
        run(_config(output, samples, "validation.limits.memory_mb=256"))


def test_s3_input_and_output_through_a_real_s3_server(tmp_path: Path, s3_server, s3_bucket: str):
    samples = small_mix()[:2]
    fs, root = ObjectStore(storage=s3_server.storage_config()).filesystem(s3_bucket)
    fs.pipe_file(f"{root}/input/bundled.jsonl", bundled_jsonl().read_bytes())
    storage = s3_server.storage_config()
    config = _config(f"{s3_bucket}/runs/r1", samples,
                     f"storage.endpoint_url={storage.endpoint_url}", f"storage.key={storage.key}",
                     f"storage.secret={storage.secret}", source=f"{s3_bucket}/input/bundled.jsonl")
    outcome = run(config)
    assert outcome.output == f"{s3_bucket}/runs/r1"
    metrics = json.loads(fs.cat_file(f"{root}/runs/r1/metrics.json"))
    assert metrics["overall"]["n"] == 2
    shards = fs.ls(f"{root}/runs/r1/shards")
    assert shards and all(p.endswith(".parquet") for p in shards)
    manifest = fs.cat_file(f"{root}/runs/r1/manifest.json").decode()
    assert storage.secret not in manifest  # credentials never land in results
    # On object storage the shared cache tier defaults to a folder beside the run: the next
    # run under runs/ (any node) reuses the problems' tools, tests and answers. (What this
    # run built went there only where this node's own cache missed: earlier tests warmed it.)
    assert RunFolder.open(outcome.output, storage).default_shared_cache() == f"{s3_bucket}/runs/linteval-cache"
    assert json.loads(manifest)["config"]["validation"]["cache_url"] == f"{s3_bucket}/runs/linteval-cache"
    lint = json.loads(manifest)["cache"]["lint"]  # summed over the actors: one lookup per original
    assert lint["hits"] + lint["misses"] == 2, lint
