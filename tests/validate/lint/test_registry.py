from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from linteval_ray.toolchain import Toolchain
from linteval_ray.validate.lint import Linters
from linteval_ray.validate.lint.base import default_config_dir


def test_languages_route_to_their_tools(linters: Linters) -> None:
    assert linters.linter("cpp").tool == "clang-tidy"
    assert linters.linter("py3").tool == "pylint"
    assert linters.linter("java").tool == "pmd"
    with pytest.raises(ValueError):
        linters.linter("rust")  # type: ignore[arg-type]


def test_config_id_changes_with_the_rules(toolchain: Toolchain, tmp_path: Path) -> None:
    configs = tmp_path / "linters"
    shutil.copytree(default_config_dir(), configs)
    before = Linters(toolchain, config_dir=configs).config_id()
    assert before == Linters(toolchain).config_id()
    with open(configs / "pylintrc", "a") as fh:
        fh.write("max-line-length=80\n")
    assert Linters(toolchain, config_dir=configs).config_id() != before


def test_missing_config_is_named(toolchain: Toolchain, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="pylintrc"):
        Linters(toolchain, config_dir=tmp_path)
