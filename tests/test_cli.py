"""The command line as a user meets it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.pipeline.samples import pick


def _cli(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "linteval_ray", *args], capture_output=True, text=True,
                          timeout=timeout)


def test_help_lists_the_commands():
    out = _cli("--help")
    assert out.returncode == 0
    for command in ("run", "validate", "reduce", "compare", "toolchain"):
        assert command in out.stdout


def test_run_help_explains_resume_and_overrides():
    out = _cli("run", "--help")
    assert "resumes" in out.stdout and "--set" in out.stdout


def test_a_config_typo_is_a_clear_error(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text("dataset:\n  limt: 3\n")
    out = _cli("validate", "--config", str(config))
    assert out.returncode == 2
    assert "unknown key 'dataset.limt'" in out.stderr


def test_validate_one_sample_in_process_as_json(session_cache_dir):
    sample = pick("fails_tests", "cpp")
    out = _cli("validate", "--sample-id", sample, "--json")
    assert out.returncode == 0, out.stderr[-2000:]
    (row,) = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    assert row["sample_id"] == sample
    assert row["verdict"] == "wrong_answer"
    assert row["validation_error"].startswith("wrong_answer")
    assert row["tests_failed"] >= 1 and row["compile_ok"] is True


def test_a_user_error_is_one_line_and_debug_shows_the_traceback(tmp_path):
    out = subprocess.run([sys.executable, "-m", "linteval_ray", "run", "--dataset", str(tmp_path / "missing.jsonl")],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 2
    assert "linteval-ray: error: cannot open" in out.stderr and "Traceback" not in out.stderr
    debug = subprocess.run([sys.executable, "-m", "linteval_ray", "--debug", "run", "--dataset",
                            str(tmp_path / "missing.jsonl")], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert debug.returncode != 0 and "Traceback" in debug.stderr


def test_reduce_writes_metrics_results_and_the_report(tmp_path):
    from linteval_ray.schema import ResultRow, Status, Verdict
    from linteval_ray.schema.result import SampleMetrics
    from linteval_ray.store import RunFolder
    from linteval_ray.store.shards import write_rows

    metrics = SampleMetrics(original_total_messages=3, revised_total_messages=1, original_loc=10)
    write_rows(RunFolder.open(str(tmp_path)), [
        ResultRow(sample_id="a", row_id="a/0", language="cpp", status=Status.EVALUATED, pass_at_1=True,
                  verdict=Verdict.PASSED, metrics=metrics),
        ResultRow(sample_id="b", row_id="b/0", status=Status.INVALID_INPUT, error="bad row"),
    ])
    out = _cli("reduce", str(tmp_path))
    assert out.returncode == 0, out.stderr[-2000:]
    for name in ("metrics.json", "results.parquet", "report.md", "report.html"):
        assert (tmp_path / name).is_file(), name
    assert json.loads((tmp_path / "metrics.json").read_text())["excluded"] == 1


def test_a_missing_sandbox_is_one_line_saying_what_to_install(tmp_path):
    """No bwrap on this machine (a PATH of every tool but it): `validate` says what to install, in one
    line. As root the box server needs no bwrap, but it is built with the C compiler: without that
    (and no binary built before, an empty cache), the same one line says so."""
    missing = {"bwrap"} if os.geteuid() else {"bwrap", "cc", "gcc"}
    path = tmp_path / "bin"
    path.mkdir()
    for folder in ("/usr/local/bin", "/usr/bin", "/bin"):
        for tool in Path(folder).iterdir():
            if tool.name not in missing and not (path / tool.name).exists():
                (path / tool.name).symlink_to(tool)
    env = {**os.environ, "PATH": str(path), "LINTEVAL_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-m", "linteval_ray", "validate", "--sample-id", pick("clean_fix", "cpp")],
                         capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 2, out.stderr[-2000:]
    what = "bubblewrap (bwrap) not found: install bubblewrap" if os.geteuid() else "apt-get install gcc"
    assert out.stderr.startswith("linteval-ray: error: the bwrap sandbox cannot work here: "), out.stderr[-2000:]
    assert what in out.stderr and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr[-2000:]
