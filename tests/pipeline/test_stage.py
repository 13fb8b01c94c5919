"""The stage model: input columns checked per batch and across the chain, callables keep their
names, the validation actor cleans up after itself, and the layers import downwards only."""

from __future__ import annotations

import gc
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from linteval_ray.config import EndpointGeneration, RunConfig, ValidationConfig, load_config
from linteval_ray.generate.endpoint import EndpointBackend
from linteval_ray.generate.replay import ReplayBackend
from linteval_ray.load import load_split
from linteval_ray.pipeline.inputs import input_rows
from linteval_ray.pipeline.progress import Progress
from linteval_ray.pipeline.source import admit_stage, batches_stage, stream_schema
from linteval_ray.pipeline.store import SUMMARY_SCHEMA, store_stage
from linteval_ray.pipeline.validation import ValidateBatch, validation_stage
from linteval_ray.pipeline.wiring import pipeline_stages
from linteval_ray.schema.rows import INPUT_COLUMNS, generation_schema
from linteval_ray.stage import BatchStage, FusedStage, ProcessorStage, Stage, StageInputError, check_chain
from linteval_ray.store import RunFolder
from linteval_ray.store.shards import read_rows
from tests.pipeline.samples import bundled_jsonl


def _doubled(batch: pa.Table, factor: int) -> pa.Table:
    return pa.table({"y": [x * factor for x in batch.column("x").to_pylist()]})


class Doubler:
    def __init__(self, factor: int) -> None:
        self.factor = factor

    def __call__(self, batch: pa.Table) -> pa.Table:
        return _doubled(batch, self.factor)


def _stage(fn: Any, **kwargs: Any) -> BatchStage:
    return BatchStage(name="double", fn=fn, required_columns=("x",),
                      output_schema=pa.schema([("y", pa.int64())]), **kwargs)


def test_a_function_stage_checks_its_input_columns_per_batch() -> None:
    double = _stage(_doubled, fn_kwargs={"factor": 2}).in_process()
    assert double(pa.table({"x": [1, 2]})).column("y").to_pylist() == [2, 4]
    with pytest.raises(StageInputError, match=r"stage 'double' needs column\(s\) 'x' .*\(it has: z\)"):
        double(pa.table({"z": [1]}))


def test_a_class_stage_checks_too_and_keeps_its_name_for_ray() -> None:
    stage = _stage(Doubler, fn_constructor_kwargs={"factor": 3})
    # Ray names the operator and its actor processes after the class ("MapBatches(Doubler)").
    assert stage.checked_fn().__name__ == "Doubler" and issubclass(stage.checked_fn(), Doubler)
    double = stage.in_process()
    assert double(pa.table({"x": [1]})).column("y").to_pylist() == [3]
    with pytest.raises(StageInputError, match="stage 'double' needs column"):
        double(pa.table({"z": [1]}))


def test_the_run_chain_checks_out_and_a_miswired_one_is_refused_before_running() -> None:
    config = load_config(None, ["validation.pool.max_actors=1"])  # a fixed pool: no Ray needed to size it
    unused = RunFolder.open("/tmp/unused")
    stages = [ReplayBackend().stage(), validation_stage(config, unused, None), store_stage(config, unused)]
    check_chain(stages, INPUT_COLUMNS)
    assert stages[-1].output_columns(INPUT_COLUMNS) == ["row_id", "status", "pass_at_1", "language", "total_s",
                                                        "shard"]
    with pytest.raises(StageInputError, match=r"stage 'validate' needs column.*'raw_response'"):
        check_chain(stages[1:], INPUT_COLUMNS)  # no generation stage in front


def test_a_processor_stage_checks_its_input_on_ray(local_ray: None) -> None:
    import ray.data

    stage = ProcessorStage(name="llm", processor=lambda ds: ds, required_columns=("record_json",),
                           output_schema=generation_schema(), keeps_input_columns=True)
    assert stage.apply(ray.data.from_items([{"record_json": "{}"}])).take_all() == [{"record_json": "{}"}]
    with pytest.raises(Exception, match="stage 'llm' needs column\\(s\\) 'record_json'"):
        stage.apply(ray.data.from_items([{"x": 1}])).take_all()


def _scratch_dirs(root: Path) -> list[Path]:
    return sorted(root.glob("linteval-work-*"))


def test_validate_batch_removes_its_scratch_dir_on_close_and_on_teardown(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    actor = ValidateBatch(ValidationConfig(), RunFolder.open(str(tmp_path / "run")), prompt_version=None)
    assert len(_scratch_dirs(tmp_path)) == 1
    actor.close()
    assert _scratch_dirs(tmp_path) == []
    actor.close()  # a second close (then __del__) does nothing

    # Ray Data drops the instance when the actor exits gracefully: __del__ closes it.
    actor = ValidateBatch(ValidationConfig(), RunFolder.open(str(tmp_path / "run")), prompt_version=None)
    assert len(_scratch_dirs(tmp_path)) == 1
    del actor
    gc.collect()
    assert _scratch_dirs(tmp_path) == []


def test_progress_names_the_statuses_that_are_not_evaluated() -> None:
    progress = Progress(total=3)
    progress.update(["evaluated", "infra_error", "evaluated"], [True, False, False])
    line = progress.line()
    assert "validated 3/3 rows" in line and "passed 1" in line and "infra_error 1" in line
    assert "evaluated" not in line.split("passed", 1)[1]


@pytest.mark.parametrize(("module", "forbidden"), [
    ("linteval_ray.reduce.reduce", ("linteval_ray.report",)),
    ("linteval_ray.validate.engine", ("linteval_ray.pipeline", "linteval_ray.generate", "linteval_ray.report")),
])
def test_lower_layers_do_not_import_upper_ones(module: str, forbidden: tuple[str, ...]) -> None:
    code = (f"import sys, {module}; "
            f"print('\\n'.join(m for m in sys.modules if m.startswith({forbidden!r})))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert done.stdout.split() == [], f"{module} imports {done.stdout.split()}"


def _intake(config: RunConfig, folder: RunFolder) -> list[Stage]:
    url = "/tmp/unused.jsonl"
    return [admit_stage(folder, None, url), batches_stage(config, url)]


def test_replay_and_the_store_run_in_the_validation_actor_and_a_model_stays_apart() -> None:
    folder = RunFolder.open("/tmp/unused")
    one_shard_per_batch = load_config(None, ["validation.pool.max_actors=1", "validation.pool.batch_size=8",
                                             "validation.pool.store_batch_size=8"])
    replayed = pipeline_stages(one_shard_per_batch, folder, _intake(one_shard_per_batch, folder), ReplayBackend())
    assert [s.name for s in replayed] == ["admit", "batches", "evaluate"]
    evaluate = replayed[-1]
    assert isinstance(evaluate, FusedStage)
    assert [p.name for p in evaluate.parts] == ["replay", "validate", "store"]
    assert evaluate.fused_class().__name__ == "replay_batch+ValidateBatch+store_batch"  # Ray's operator name
    assert evaluate.map_batches_kwargs["batch_size"] == 8 and "compute" in evaluate.map_batches_kwargs
    check_chain(replayed, stream_schema().names)
    assert evaluate.output_columns(INPUT_COLUMNS) == SUMMARY_SCHEMA.names

    # A shard larger than a batch gathers batches: the store is its own operator then.
    gathered = load_config(None, ["validation.pool.max_actors=1", "validation.pool.store_batch_size=16"])
    names = [s.name for s in pipeline_stages(gathered, folder, _intake(gathered, folder), ReplayBackend())]
    assert names == ["admit", "batches", "evaluate", "store"]

    endpoint = EndpointBackend(EndpointGeneration(endpoint={"url": "http://127.0.0.1:9/v1"}))
    generated = pipeline_stages(one_shard_per_batch, folder, _intake(one_shard_per_batch, folder), endpoint)
    assert [s.name for s in generated] == ["admit", "batches", "endpoint", "evaluate"]
    check_chain(generated, stream_schema().names)


def test_the_fused_actor_judges_stores_in_shards_and_stops_at_an_empty_batch(tmp_path: Path) -> None:
    config = load_config(None, ["validation.pool.max_actors=1", "validation.pool.batch_size=2",
                                "validation.pool.store_batch_size=1"])
    folder = RunFolder.open(str(tmp_path / "run"))
    backend = ReplayBackend(predictions=[])  # no prediction: every row is a generation_error
    evaluate = pipeline_stages(config, folder, _intake(config, folder), backend)[-1]
    assert isinstance(evaluate, FusedStage)
    fused = evaluate.fused_class()(parts=evaluate.parts)
    records = [r for r in load_split(str(bundled_jsonl())).records if r.language == "py3"][:2]
    batch = pa.Table.from_pylist([row for r in records for row in input_rows(r, 1)])

    summary = fused(batch)

    assert summary.column("status").to_pylist() == ["generation_error"] * 2
    assert len(set(summary.column("shard").to_pylist())) == 2  # one row per shard
    written, duplicates = read_rows(folder)
    assert sorted(r.row_id for r in written) == sorted(summary.column("row_id").to_pylist()) and duplicates == 0
    empty = fused(batch.slice(0, 0))
    assert empty.num_rows == 0 and empty.schema == SUMMARY_SCHEMA
    assert len(read_rows(folder)[0]) == 2  # nothing written for an empty batch
