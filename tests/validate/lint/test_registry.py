from __future__ import annotations

from pathlib import Path

import pytest

from linteval_ray.config import ConfigError
from linteval_ray.toolchain import Toolchain
from linteval_ray.validate.lint import Linters
from linteval_ray.validate.lint.profiles import DEFAULT_PROFILE, builtin_profiles, copy_profile, load_profile


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


def test_a_languages_config_id_changes_with_its_rules_only(toolchain: Toolchain, tmp_path: Path) -> None:
    """Cached alerts are keyed by their language's id: editing pylintrc invalidates Python's only."""
    copy = copy_profile(load_profile("linteval"), tmp_path / "mine")
    assert Linters(toolchain, profile=copy).config_id("py3") == Linters(toolchain).config_id("py3")
    with open(tmp_path / "mine" / "pylintrc", "a") as fh:
        fh.write("max-line-length=80\n")
    edited = Linters(toolchain, profile=load_profile(tmp_path / "mine"))
    assert edited.config_id("py3") != Linters(toolchain, profile=copy).config_id("py3")
    assert [edited.config_id(lang) for lang in ("cpp", "java")] == [copy.config_id_of(lang) for lang in ("cpp", "java")]
    assert edited.profile.config_id != copy.config_id  # the whole profile's, in the manifest


def test_missing_profile_or_config_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"not found: use one of .*linteval"):
        load_profile("no-such-profile")
    copy_profile(load_profile("broad"), tmp_path / "p")
    (tmp_path / "p" / "pylintrc").unlink()
    with pytest.raises(ConfigError, match="lacks pylintrc"):
        load_profile(tmp_path / "p")
