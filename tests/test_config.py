"""Run configs: the shipped YAML files parse, unknown keys are named, overrides win."""

from __future__ import annotations

from pathlib import Path

import pytest

from linteval_ray.config import ConfigError, load_config

CONFIGS = Path(__file__).resolve().parents[1] / "configs"


@pytest.mark.parametrize("name", ["bundled.yaml", "lite.yaml", "full.yaml"])
def test_shipped_configs_parse(name: str):
    config = load_config(CONFIGS / name)
    assert config.validation.sandbox == "bwrap"


def test_unknown_key_is_an_error_that_names_it(tmp_path: Path):
    path = tmp_path / "c.yaml"
    path.write_text("validation:\n  limits:\n    memory_mbb: 256\n")
    with pytest.raises(ConfigError, match=r"unknown key 'validation\.limits\.memory_mbb'"):
        load_config(path)


def test_wrong_type_names_the_key(tmp_path: Path):
    with pytest.raises(ConfigError, match=r"generation\.n"):
        load_config(None, ["generation.n=many"])


def test_overrides_win_over_the_file(tmp_path: Path):
    path = tmp_path / "c.yaml"
    path.write_text("dataset:\n  limit: 5\n")
    config = load_config(path, ["dataset.limit=7", "validation.pool.resources={validation: 1}"])
    assert config.dataset.limit == 7
    assert config.validation.pool.resources == {"validation": 1.0}


def test_override_without_equals_is_rejected():
    with pytest.raises(ConfigError, match="not key=value"):
        load_config(None, ["dataset.limit"])
