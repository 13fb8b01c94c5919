"""A third task registered from outside the package (tests/tasks/arith, through ``$LINTEVAL_RAY_TASKS``)
is evaluated end to end as a built-in one: recognised by its split's columns, read, prompted, judged
in the sandbox, reduced and reported, by ``validate`` in process and by ``run`` on a local Ray (whose
workers inherit the variable)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from linteval_ray.tasks.registry import PLUGINS_ENV

REPO = Path(__file__).resolve().parents[2]
ROWS = [{"id": "sum", "question": "What is 2 + 3?", "answer": 5},
        {"id": "product", "question": "What is 6 * 7?", "answer": 42},
        {"id": "broken", "question": "What is nothing?", "answer": "many"}]
ANSWERS = [{"sample_id": "sum", "draw": 0, "raw_response": "Easy.\n```python\nprint(2 + 3)\n```"},
           {"sample_id": "product", "draw": 0, "raw_response": "```python\nprint(6 * 8)\n```"}]


def linteval(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "linteval_ray", *args], capture_output=True, text=True, env=env,
                          cwd=REPO, timeout=900, check=False)


@pytest.fixture
def split(tmp_path: Path) -> tuple[Path, Path]:
    dataset, answers = tmp_path / "arith.jsonl", tmp_path / "answers.jsonl"
    dataset.write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    answers.write_text("".join(json.dumps(row) + "\n" for row in ANSWERS))
    return dataset, answers


def plugin_env(with_plugin: bool) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    env.pop(PLUGINS_ENV, None)
    return {**env, PLUGINS_ENV: "tests.tasks.arith"} if with_plugin else env


def test_a_task_registered_from_outside_the_package_is_validated_end_to_end(split: tuple[Path, Path]) -> None:
    dataset, answers = split
    unknown = linteval(["validate", "--dataset", str(dataset), "--predictions", str(answers), "--json"],
                       plugin_env(False))
    assert unknown.returncode != 0 and "no task recognise its columns (answer, id, question)" in unknown.stderr

    done = linteval(["validate", "--dataset", str(dataset), "--predictions", str(answers), "--json"], plugin_env(True))
    assert done.returncode == 0, done.stderr[-3000:]
    rows = {row["sample_id"]: row for row in map(json.loads, done.stdout.splitlines())}
    assert (rows["sum"]["task"], rows["sum"]["verdict"], rows["sum"]["pass_at_1"]) == ("arith", "passed", True)
    assert rows["product"]["verdict"] == "wrong_answer"
    assert rows["broken"]["status"] == "invalid_input" and "field 'answer'" in rows["broken"]["error"]


@pytest.mark.slow
def test_a_task_plugin_runs_on_ray_and_gets_its_report(split: tuple[Path, Path], tmp_path: Path) -> None:
    dataset, answers = split
    out = tmp_path / "run"
    done = linteval(["run", "--dataset", str(dataset), "--predictions", str(answers), "-o", str(out)],
                    plugin_env(True))
    assert done.returncode == 0, done.stderr[-3000:]
    metrics = json.loads((out / "metrics.json").read_text())
    assert (metrics["task"], metrics["overall"]["n"], metrics["overall"]["n_passed"]) == ("arith", 2, 1)
    assert json.loads((out / "manifest.json").read_text())["task"] == "arith"
    assert "# Arith (example plugin) results: run" in (out / "report.md").read_text()
    assert (out / "report" / "index.html").is_file()
