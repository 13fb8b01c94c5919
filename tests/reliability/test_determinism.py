"""Two runs of the same inputs give the same per-sample verdicts, counts, alerts and metrics."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from linteval_ray.config import load_config
from linteval_ray.pipeline.run import run
from tests.pipeline.samples import pick

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("local_ray")]

# Everything about a row that must not depend on the run (not timings, workers or paths).
STABLE_FIELDS = ("status", "error", "verdict", "validation_error", "pass_at_1", "compile_ok", "extraction_ok",
                 "revised_code", "tests_generated", "tests_passed", "tests_failed", "tests_dropped",
                 "original_messages", "revised_messages", "metrics", "limits", "toolchain_id")


def _samples() -> list[str]:
    """A pass, a wrong answer and a compile error, across the three languages."""
    return [pick("clean_fix", "cpp"), pick("fails_tests", "py3"), pick("partial_fix", "java"),
            pick("no_compile")]


def _stable_rows(output: str) -> dict[str, str]:
    rows = pq.read_table(Path(output) / "results.parquet").to_pylist()
    return {r["row_id"]: json.dumps({k: r[k] for k in STABLE_FIELDS}, sort_keys=True, default=str) for r in rows}


def test_two_runs_of_the_same_inputs_agree(tmp_path: Path) -> None:
    samples = _samples()
    outputs = []
    for name in ("first", "second"):
        config = load_config(None, [f"output={json.dumps(str(tmp_path / name))}", "dataset.source=bundled",
                                    f"dataset.sample_ids={json.dumps(samples)}"])
        outputs.append(run(config).output)

    first, second = (_stable_rows(o) for o in outputs)
    assert sorted(first) == sorted(f"{s}/0" for s in samples)
    assert first == second
    verdicts = {json.loads(v)["verdict"] for v in first.values()}
    assert {"passed", "wrong_answer", "compile_error"} <= verdicts  # the comparison covers each kind
    metrics = [json.loads((Path(o) / "metrics.json").read_text()) for o in outputs]
    assert metrics[0]["overall"] == metrics[1]["overall"]
    assert metrics[0]["by_category"] == metrics[1]["by_category"]
