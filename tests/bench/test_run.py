"""bench/run.py's outputs fit their readers: figures.json loads into plan's Figures."""

from __future__ import annotations

import json
from pathlib import Path

from bench.naive import reference_revision
from bench.run import figures, perturbed_predictions, summarise
from linteval_ray.generate.replay import load_predictions
from linteval_ray.plan import load_figures, plan
from tests.bench.test_equivalence import bundled


def _raw(cpu_by_language: dict[str, float], total: float) -> dict:
    stages = {"lint": {k: v / 3 for k, v in cpu_by_language.items()},
              "compile": {k: v / 3 for k, v in cpu_by_language.items()},
              "tests": {k: v / 3 for k, v in cpu_by_language.items()}}
    return {"wall_s": 10.0, "cpu_s": total, "stages": stages, "actors": [], "verdicts": {}}


def test_figures_json_is_what_linteval_ray_plan_reads(tmp_path: Path):
    records = [bundled("lr01_cpp_0"), bundled("lr01_py3_0"), bundled("lr02_py3_0")]
    results = {"cold": summarise("cold", _raw({"cpp": 30.0, "py3": 10.0}, 50.0), records),
               "warm": summarise("warm", _raw({"cpp": 3.0, "py3": 2.0}, 6.0), records)}
    path = tmp_path / "figures.json"
    path.write_text(json.dumps(figures(results, records)))

    loaded = load_figures(path)
    assert loaded.validation_cpu_s["cpp"] == 3.0  # warm CPU of the one cpp sample
    assert loaded.validation_cpu_s["py3"] == 1.0  # warm CPU of two py3 samples, per sample
    assert loaded.validation_cpu_s["java"] > 0  # no java sample: the default stays
    assert loaded.problem_setup_cpu_s == 35.0 / 2  # (cold - warm) over two problems
    assert "bench/run.py" in loaded.sources["validation_cpu_s"]
    assert plan(498, 1, 8, loaded).cpu_s_per_sample > 0


def test_overhead_beyond_ray_start_is_what_a_longer_run_amortises():
    records = [bundled("lr01_cpp_0"), bundled("lr01_py3_0")]
    raw = {**_raw({"cpp": 6.0, "py3": 4.0}, 25.0), "driver_cpu_s": 3.0}
    summary = summarise("warm", raw, records, ray_start_stop_cpu_s=12.0)
    assert summary["overhead_share_of_validation"] == 1.5  # (25 - 10) / 10
    assert summary["overhead_beyond_ray_start_share"] == 0.3  # (25 - 10 - 12) / 10
    assert "overhead_beyond_ray_start_share" not in summarise("naive", _raw({"cpp": 6.0}, 6.0), records[:1])


def test_warm_predictions_append_a_comment_and_keep_failed_extractions(tmp_path: Path):
    records = [bundled("lr01_cpp_0"), bundled("lr02_py3_1")]  # the second has no code to extract
    path = tmp_path / "predictions.jsonl"
    perturbed_predictions(records, path)
    predictions = {p.sample_id: p for p in load_predictions(str(path))}
    cpp = predictions["lr01_cpp_0"]
    assert cpp.revised_code.startswith(reference_revision(records[0]).rstrip("\n"))
    assert cpp.revised_code.endswith("// evaluated again by a second model\n")
    assert predictions["lr02_py3_1"].revised_code is None and reference_revision(records[1]) is None
