"""A set of saved-answer models end to end on the session's local Ray and content cache: one warm
validation pool for every model, ordinary run folders, the leaderboard, resume, the trackers."""

from __future__ import annotations

import json
import shutil
import signal
import threading
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from linteval_ray.config import RunConfig, load_config
from linteval_ray.pipeline.run import run
from linteval_ray.schema.arrow import result_schema
from linteval_ray.sets.run import SetOutcome, run_set
from linteval_ray.store import ObjectStore
from linteval_ray.store.folder import RunFolder
from tests.pipeline.samples import small_mix
from tests.sets.answers import write_answers

pytestmark = pytest.mark.usefixtures("local_ray")

SAMPLES = small_mix()[:3]  # C++ clean fix, Python failing its tests, Java partial fix


def set_config(output: Path, models: list[dict], *overrides: str) -> RunConfig:
    return load_config(None, [f"output={json.dumps(str(output))}", f"dataset.sample_ids={json.dumps(SAMPLES)}",
                              f"models={json.dumps(models)}", "validation.pool.max_actors=1",
                              f"run_name={json.dumps('ft-run')}", *overrides])


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("answers")
    return {kind: str(write_answers(folder / f"{kind}.jsonl", kind)) for kind in ("reference", "unchanged")}


def two_models(answers: dict[str, str]) -> list[dict]:
    return [{"name": "ref", "predictions": answers["reference"]},
            {"name": "unchanged", "predictions": answers["unchanged"], "step": 100}]


@pytest.fixture(scope="module")
def evaluated(answers: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, SetOutcome]:
    output = tmp_path_factory.mktemp("set") / "out"
    return output, run_set(set_config(output, two_models(answers)))


def rows(folder: Path) -> list[dict]:
    return pq.read_table(folder / "results.parquet").to_pylist()


def test_every_model_is_an_ordinary_run_folder_judged_by_one_warm_pool(evaluated, answers):
    output, outcome = evaluated
    assert outcome.evaluated and sorted(outcome.evaluated) == ["ref", "unchanged"] and not outcome.finished_before
    workers = set()
    for name in ("ref", "unchanged"):
        folder = output / "models" / name
        judged = rows(folder)
        assert sorted(r["sample_id"] for r in judged) == sorted(SAMPLES)
        assert all(r["status"] == "evaluated" for r in judged)
        manifest = json.loads((folder / "manifest.json").read_text())
        assert manifest["finished_at"] and manifest["run_name"] == name and manifest["counts"]["rows"] == len(SAMPLES)
        assert manifest["cache"], "the model's share of the pool's content-cache counters"
        for page in ("report.md", "report/index.html", "metrics.json"):
            assert (folder / page).is_file(), page
        workers |= {r["worker"] for r in judged}
    assert len(workers) == 1, f"one validation actor judged both models: {workers}"
    by_sample = {r["sample_id"]: r["verdict"] for r in rows(output / "models" / "unchanged")}
    assert set(by_sample.values()) == {"passed"}, "an unchanged original passes its own tests"
    # `linteval-ray run` of the model alone into its folder finds its own run there: nothing to do.
    single = load_config(None, [f"output={json.dumps(str(output / 'models' / 'ref'))}",
                                f"dataset.sample_ids={json.dumps(SAMPLES)}", "generation.backend=replay",
                                f"generation.replay.predictions={json.dumps(answers['reference'])}"])
    resumed = run(single)
    assert (resumed.resumed_rows, resumed.new_rows) == (len(SAMPLES), 0)


def test_the_leaderboard_pairs_each_model_with_the_baseline(evaluated):
    output, outcome = evaluated
    board = json.loads((output / "leaderboard.json").read_text())
    assert board["baseline"] == "ref" and [m["name"] for m in board["models"]] == ["ref", "unchanged"]
    ref, unchanged = board["models"]
    for entry in board["models"]:
        metrics = json.loads((output / entry["output"] / "metrics.json").read_text())
        assert entry["overall"] == metrics["overall"] and entry["by_language"] == metrics["by_language"]
    assert ref["delta"] is None and unchanged["step"] == 100 and unchanged["paired_samples"] == len(SAMPLES)
    for key in ("pass_at_1", "reduction_at_p"):
        delta = unchanged["delta"][key]
        assert delta["value"] == pytest.approx(unchanged["overall"][key] - ref["overall"][key])
        low, high = delta["ci"]
        assert low <= delta["value"] <= high
    assert unchanged["delta"]["reduction_at_p"]["value"] < 0  # returning the original fixes nothing
    page = (output / "leaderboard.html").read_text()
    for name in ("ref", "unchanged"):
        assert f"href='models/{name}/report/index.html'" in page
        assert (output / "models" / name / "report" / "index.html").is_file()
    assert (output / "plots" / "learning_curve.png").read_bytes()[:4] == b"\x89PNG"
    assert "learning_curve.png" in page and "| unchanged | 100 |" in (output / "leaderboard.md").read_text()
    assert outcome.leaderboard is not None and outcome.leaderboard.baseline == "ref"


def test_returning_every_program_unchanged_does_not_top_the_leaderboard(evaluated, capsys):
    """"unchanged" returns each original as it is: every test passes (Pass@1 100 %), no alert goes away.
    The default ranking (Pass@1 x Reduction@P) puts the model that fixes alerts first and shows the share
    of revisions identical to their original; ranking by Pass@1 alone is still there, asked for."""
    from linteval_ray.cli import main

    output = evaluated[0]
    board = json.loads((output / "leaderboard.json").read_text())
    assert board["rank_by"] == "pass_x_reduction"
    overall = {m["name"]: m["overall"] for m in board["models"]}
    assert overall["unchanged"]["pass_at_1"] > overall["ref"]["pass_at_1"]  # what ranked it first before
    assert (overall["unchanged"]["unchanged"], overall["ref"]["unchanged"]) == (1.0, 0.0)
    lines = [line for line in (output / "leaderboard.md").read_text().splitlines() if line.startswith("| ")]
    assert [line.split("|")[1].strip() for line in lines[1:3]] == ["ref (baseline)", "unchanged"]
    assert lines[2].split("|")[11].strip() == "100.0%"  # its Unchanged column

    def compared(*flags: str) -> list[str]:
        assert main(["compare", str(output), "--markdown", *flags]) == 0
        rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ")][1:]
        return [row.split("|")[1].strip().split(" (")[0] for row in rows]

    assert compared() == ["ref", "unchanged"]
    assert compared("--rank-by", "pass_at_1") == ["unchanged", "ref"]


def test_a_rerun_skips_finished_models_resumes_a_partial_one_and_adds_new_ones(evaluated, answers, tmp_path):
    output = tmp_path / "out"
    shutil.copytree(evaluated[0], output)
    # "unchanged" was killed before it finished: one row lost, no reduction, no finish in its manifest.
    partial = output / "models" / "unchanged"
    manifest = json.loads((partial / "manifest.json").read_text())
    (partial / "manifest.json").write_text(json.dumps({**manifest, "finished_at": None}))
    kept = rows(partial)
    shutil.rmtree(partial / "shards")
    (partial / "shards").mkdir()
    pq.write_table(pa.Table.from_pylist(kept[:-1], schema=result_schema()), partial / "shards" / "kept.parquet")
    models = [*two_models(answers), {"name": "ref-again", "predictions": answers["reference"]}]
    outcome = run_set(set_config(output, models))
    assert outcome.finished_before == ["ref"]
    assert sorted(outcome.evaluated) == ["ref-again", "unchanged"]
    assert sorted(r["sample_id"] for r in rows(partial)) == sorted(SAMPLES)  # the lost row judged again
    assert [m["name"] for m in json.loads((output / "leaderboard.json").read_text())["models"]] == [
        "ref", "unchanged", "ref-again"]
    again = run_set(set_config(output, models))
    assert again.evaluated == [] and sorted(again.finished_before) == ["ref", "ref-again", "unchanged"]


def test_compare_takes_a_sets_folder(evaluated, capsys):
    from linteval_ray.cli import main

    output = evaluated[0]
    assert main(["compare", str(output)]) == 0
    printed = capsys.readouterr().out
    assert "ref (predictions)" in printed and "unchanged (predictions)" in printed
    assert (output / "compare.html").is_file()
    folders = [RunFolder(url=str(output / "models" / n), store=ObjectStore()) for n in ("ref", "unchanged")]
    assert all(Path(f.metrics).is_file() for f in folders)


def test_a_tracker_that_is_down_costs_a_warning_and_a_rerun_logs_to_mlflow_and_wandb(
        evaluated, answers, tmp_path, monkeypatch, mlflow_server):
    from mlflow.tracking import MlflowClient

    from tests.track.wandb_log import records

    output = tmp_path / "out"
    shutil.copytree(evaluated[0], output)
    models = two_models(answers)
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")  # no server at all: refused at once
    down = run_set(set_config(output, models, 'tracking.log_to=["mlflow"]',
                              'tracking.mlflow.tracking_uri="http://lab:s3cret@127.0.0.1:9"'))
    assert down.evaluated == [] and len(down.warnings) == 1, down.warnings
    assert down.warnings[0].startswith("mlflow: could not log model ref") and "rerun" in down.warnings[0]
    assert "s3cret" not in down.warnings[0]
    assert all(not m["tracked"] for m in json.loads((output / "set.json").read_text())["models"])

    monkeypatch.delenv("MLFLOW_ALLOW_FILE_STORE", raising=False)  # as a user's shell: no opt-in of any kind
    store, wandb_dir = mlflow_server.url, tmp_path / "wandb"  # a real `mlflow server` on 127.0.0.1
    up = run_set(set_config(output, models, 'tracking.log_to=["mlflow", "wandb"]',
                            f"tracking.mlflow.tracking_uri={json.dumps(store)}", 'tracking.wandb.mode="offline"',
                            f"tracking.wandb.dir={json.dumps(str(wandb_dir))}"))
    assert up.warnings == []
    record = {m["name"]: m["tracked"] for m in json.loads((output / "set.json").read_text())["models"]}
    assert set(record["ref"]) == set(record["unchanged"]) == {"mlflow", "wandb"}

    manifest = json.loads((output / "models" / "unchanged" / "manifest.json").read_text())
    metrics = json.loads((output / "models" / "unchanged" / "metrics.json").read_text())
    client = MlflowClient(tracking_uri=store)
    experiment = client.get_experiment_by_name("ft-run")
    runs = {r.info.run_name: r for r in client.search_runs([experiment.experiment_id])}
    assert set(runs) == {"ref", "unchanged"} and runs["unchanged"].info.run_id == record["unchanged"]["mlflow"]
    logged = runs["unchanged"]
    assert logged.data.metrics["overall/pass_at_1"] == metrics["overall"]["pass_at_1"]
    assert logged.data.metrics["overall/reduction_at_p_ci_low"] == metrics["overall"]["reduction_at_p_ci"][0]
    for language in metrics["by_language"]:
        assert logged.data.metrics[f"{language}/pass_at_1"] == metrics["by_language"][language]["pass_at_1"]
    assert any(k.startswith("category/") for k in logged.data.metrics)
    [point] = client.get_metric_history(logged.info.run_id, "overall/pass_at_1")
    assert point.step == 100
    tags = logged.data.tags
    assert tags["linteval.dataset_sha256"] == manifest["dataset_sha256"] and tags["linteval.step"] == "100"
    assert tags["linteval.run_folder"] == str(output / "models" / "unchanged")
    assert len(tags["linteval.toolchain_id"]) == 12
    files = {a.path for a in client.list_artifacts(logged.info.run_id)}
    assert {"results.parquet", "leaderboard.json", "leaderboard.md", "learning_curve.png"} <= files
    fetched = Path(client.download_artifacts(logged.info.run_id, "results.parquet", str(tmp_path / "fetched")))
    assert fetched.read_bytes() == (output / "models" / "unchanged" / "results.parquet").read_bytes()

    by_name = {}
    for log in sorted(wandb_dir.glob("wandb/offline-run-*/run-*.wandb")):
        run_records = records(log)
        [run_record] = [r.run for r in run_records if r.WhichOneof("record_type") == "run"]
        by_name[run_record.display_name] = (run_record, run_records)
    assert set(by_name) == {"ref", "unchanged"}
    run_record, run_records = by_name["unchanged"]
    assert run_record.run_group == "ft-run" and run_record.run_id == record["unchanged"]["wandb"]
    config = {item.key: json.loads(item.value_json) for item in run_record.config.update}
    assert config["linteval.dataset_sha256"] == manifest["dataset_sha256"]
    history = [{(i.key or "/".join(i.nested_key)): json.loads(i.value_json) for i in r.history.item}
                for r in run_records if r.WhichOneof("record_type") == "history"]
    [step] = [h for h in history if "overall/pass_at_1" in h]
    assert step["_step"] == 100 and step["overall/pass_at_1"] == metrics["overall"]["pass_at_1"]
    [artifact] = [r.artifact for r in run_records if r.WhichOneof("record_type") == "artifact"]
    assert {"results.parquet", "leaderboard.json"} <= {entry.path for entry in artifact.manifest.contents}
    # Logged once: a rerun leaves the trackers alone.
    again = run_set(set_config(output, models, 'tracking.log_to=["mlflow"]',
                               f"tracking.mlflow.tracking_uri={json.dumps(store)}"))
    assert again.warnings == [] and len(client.search_runs([experiment.experiment_id])) == 2


def test_a_set_logs_to_an_mlflow_sqlite_store_as_a_user_names_it(evaluated, answers, tmp_path, monkeypatch):
    from mlflow.tracking import MlflowClient

    monkeypatch.delenv("MLFLOW_ALLOW_FILE_STORE", raising=False)
    monkeypatch.chdir(tmp_path)  # MLflow keeps a sqlite store's artifacts in ./mlruns
    output = tmp_path / "out"
    shutil.copytree(evaluated[0], output)
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "sqlite:///mlflow.db")  # relative: the folder the user is in
    logged = run_set(set_config(output, two_models(answers), 'tracking.log_to=["mlflow"]'))
    assert logged.warnings == []
    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path / 'mlflow.db'}")
    experiment = client.get_experiment_by_name("ft-run")
    runs = {r.info.run_name: r for r in client.search_runs([experiment.experiment_id])}
    metrics = json.loads((output / "models" / "ref" / "metrics.json").read_text())
    assert set(runs) == {"ref", "unchanged"}
    assert runs["ref"].data.metrics["overall/pass_at_1"] == metrics["overall"]["pass_at_1"]
    assert "results.parquet" in {a.path for a in client.list_artifacts(runs["ref"].info.run_id)}


def test_follow_polls_the_glob_until_interrupted(evaluated, answers, tmp_path):
    output = tmp_path / "out"
    shutil.copytree(evaluated[0], output)
    (tmp_path / "train").mkdir()  # training has written no checkpoint yet
    board = output / "leaderboard.json"
    written = board.stat().st_mtime_ns

    def interrupt_after_two_polls() -> None:  # as Ctrl-C would, once two rounds rewrote the leaderboard
        nonlocal written
        for _ in range(2):
            while board.stat().st_mtime_ns == written:
                time.sleep(0.05)
            written = board.stat().st_mtime_ns
        signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)

    threading.Thread(target=interrupt_after_two_polls, daemon=True).start()
    config = set_config(output, two_models(answers), "checkpoints.follow_s=0.2",
                        f"checkpoints.glob={json.dumps(str(tmp_path / 'train' / 'checkpoint-*'))}")
    outcome = run_set(config)  # returns once interrupted, with what it has
    assert outcome.evaluated == [] and sorted(outcome.finished_before) == ["ref", "unchanged"]
    assert [m["name"] for m in json.loads(board.read_text())["models"]] == ["ref", "unchanged"]
