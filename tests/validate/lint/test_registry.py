from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from linteval_ray.config import ConfigError
from linteval_ray.toolchain import Toolchain
from linteval_ray.validate.lint import Linters
from linteval_ray.validate.lint.profiles import DEFAULT_PROFILE, builtin_profiles, load_profile


def test_languages_route_to_their_tools(linters: Linters) -> None:
    assert linters.linter("cpp").tool == "clang-tidy"
    assert linters.linter("py3").tool == "pylint"
    assert linters.linter("java").tool == "pmd"
    with pytest.raises(ValueError):
        linters.linter("rust")  # type: ignore[arg-type]


def test_builtin_profiles_and_default() -> None:
    assert {"linteval", "broad"} <= set(builtin_profiles())
    assert DEFAULT_PROFILE == "linteval"
    assert load_profile().name == "linteval"
    assert load_profile("broad").config_id != load_profile("linteval").config_id


def test_config_id_changes_with_the_rules(toolchain: Toolchain, tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    shutil.copytree(load_profile("linteval").path, folder)
    copy = load_profile(folder)
    assert Linters(toolchain, profile=copy).config_id() == Linters(toolchain).config_id()
    with open(folder / "pylintrc", "a") as fh:
        fh.write("max-line-length=80\n")
    assert load_profile(folder).config_id != copy.config_id


def test_missing_profile_or_config_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"not found: use one of .*linteval"):
        load_profile("no-such-profile")
    shutil.copytree(load_profile("broad").path, tmp_path / "p")
    (tmp_path / "p" / "pylintrc").unlink()
    with pytest.raises(ConfigError, match="lacks pylintrc"):
        load_profile(tmp_path / "p")
