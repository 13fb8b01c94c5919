"""The task registry: the built-in tasks, unknown names, a task registered twice, a plugin that is not one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from linteval_ray.tasks.registry import PLUGINS_ENV, UnknownTaskError, register_task, task, tasks

REPO = Path(__file__).resolve().parents[2]


def test_the_built_in_tasks_are_linteval_first_then_codecontests_o() -> None:
    assert [spec.name for spec in tasks()][:2] == ["linteval", "codecontests-o"]
    assert task("codecontests-o").presets["codecontests-o:valid"].endswith("/data/valid-*.parquet")


def test_an_unknown_task_names_the_known_ones() -> None:
    with pytest.raises(UnknownTaskError, match=r"unknown task 'nope': expected one of codecontests-o, linteval"):
        task("nope")


def test_a_second_task_of_a_name_is_refused() -> None:
    from tests.tasks.arith import ArithTask

    with pytest.raises(ValueError, match="task 'linteval' is registered twice"):
        register_task(ArithTask(name="linteval", display_name="impostor"))


def test_a_plugin_module_without_a_task_is_one_line_naming_the_variable() -> None:
    env = {**os.environ, PLUGINS_ENV: "json", "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", "from linteval_ray.tasks.registry import tasks; tasks()"],
                          capture_output=True, text=True, env=env, cwd=REPO, timeout=120, check=False)
    assert done.returncode != 0
    assert f"{PLUGINS_ENV}: json is not a module holding a task's TASK" in done.stderr
