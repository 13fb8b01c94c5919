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

from linteval_ray.config import ValidationConfig, load_config
from linteval_ray.generate.replay import ReplayBackend
from linteval_ray.pipeline.progress import Progress
from linteval_ray.pipeline.stage import BatchStage, ProcessorStage, StageInputError, check_chain
from linteval_ray.pipeline.stages import ValidateBatch, store_stage, validation_stage
from linteval_ray.schema.rows import INPUT_COLUMNS, generation_schema
from linteval_ray.store import RunFolder


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
