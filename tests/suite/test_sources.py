"""A suite's test sources: each with its task and options; a deepmind pool's limits as CodeContests-O's side
table when the run names none; Python 2.7 asked for where Python 2 solutions need it."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from linteval_ray.config import ConfigError
from linteval_ray.errors import LintEvalError
from linteval_ray.store.fs import ObjectStore
from linteval_ray.suite.command import load_suite_config
from linteval_ray.suite.index import resolve_test_sources
from linteval_ray.suite.run import check_python2, stated_limits
from linteval_ray.toolchain import Toolchain


def pool(path: Path, *, limits: bool) -> Path:
    row = {"name": ["P"], "solutions": [{"language": [2], "solution": ["int main(){}"]}]}
    if limits:
        row["time_limit"] = [{"seconds": 3, "nanos": 0}]
        row["memory_limit_bytes"] = [268435456]
    pq.write_table(pa.table(row), path)
    return path


def test_a_deepmind_pool_states_the_limits_a_codecontests_source_lacks(tmp_path: Path) -> None:
    store = ObjectStore()
    with_limits, without = pool(tmp_path / "a.parquet", limits=True), pool(tmp_path / "b.parquet", limits=False)
    config = load_suite_config(None, [f"pools={json.dumps([str(without), str(with_limits)])}",
                                      'tests=["codecontests-o:bundled", "bundled"]'])

    limits = stated_limits(config, store)
    cco, linteval = resolve_test_sources(config, store, pool_limits=limits)

    assert limits == str(with_limits)
    assert (cco.task, cco.options["limits_url"]) == ("codecontests-o", str(with_limits))
    assert (linteval.task, linteval.options) == ("linteval", {})  # LintEval takes no options
    named = load_suite_config(None, [f"pools={json.dumps([str(with_limits)])}", 'tests=["codecontests-o:bundled"]',
                                     'task.options={"limits_url": "side.jsonl"}'])
    assert resolve_test_sources(named, store, pool_limits=limits)[0].options["limits_url"] == "side.jsonl"
    assert stated_limits(load_suite_config(None, [f"pools={json.dumps([str(without)])}"]), store) is None


def test_python2_solutions_without_python2_are_refused_in_one_line_saying_what_to_do(tmp_path: Path) -> None:
    bare = Toolchain(prefix=tmp_path, paths={})  # a machine where toolchain install found no Python 2.7

    with pytest.raises(LintEvalError, match=r"run `linteval-ray toolchain install` .* or give --python2 python3"):
        check_python2(load_suite_config(None, []), bare)
    check_python2(load_suite_config(None, ["suite.python2=python3"]), bare)  # as published: nothing needed
    check_python2(load_suite_config(None, ['languages=["cpp"]']), bare)  # no Python 2 solution is judged


def test_a_language_the_suite_does_not_judge_is_a_config_error_naming_those_it_does() -> None:
    with pytest.raises(ConfigError) as caught:
        load_suite_config(None, ['languages=["cobol"]'])
    assert str(caught.value).endswith("unknown language 'cobol': the suite judges cpp, py3, java, py2")
