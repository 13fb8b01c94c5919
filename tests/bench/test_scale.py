"""bench/scale.py runs end to end at two tiny sizes and prints every figure the issue asks for,
with the targets next to them (the figures themselves are not asserted: targets are no tests),
the growth ratios from its alternating first-row probes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]


def test_scale_prints_each_figure_with_its_target(tmp_path: Path, session_cache_dir: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "scale.py"), "--sizes", "40", "120", "--first-row-probes", "1",
         "--language", "py3", "--no-warm-up", "--cache", session_cache_dir, "--keep", str(tmp_path / "work"),
         "--set", "validation.pool.batch_size=16", "--set", "validation.pool.store_batch_size=32"],
        env=env, capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = done.stdout.split("settings:", 1)[1]
    assert "120 rows" in summary and "120 result rows" in summary and "'generation_error': 120" in summary
    for label in ("driver peak RSS", "time to first result row", "rows/s end to end", "shards",
                  "reduce + report", "largest driver put"):
        assert label in summary, label
    assert summary.count("PASS") + summary.count("MISS") == 2 * 3 + 2  # per size: RSS, rate, reduce + report
    assert "120 vs 40 rows" in summary and "time to first row x" in summary and "median of the probes" in summary
    assert done.stdout.count("first-row probes (s): {40: [") == 1
    assert len(list((tmp_path / "work").glob("probe-*/shards/*.parquet"))) >= 2  # each probe wrote its first rows
    shards = list((tmp_path / "work" / "out-120" / "shards").glob("*.parquet"))
    assert "shards                    " + str(len(shards)) in summary and len(shards) >= 4
