from __future__ import annotations

from pathlib import Path

import pytest

from linteval_ray.toolchain import Toolchain, ToolchainError, default_prefix


def test_discover_finds_every_tool_on_this_machine(toolchain: Toolchain) -> None:
    assert Path(toolchain.gxx).name == "g++"
    # the PyPI wheel's binary, not Debian's /usr/bin/clang-tidy
    assert "clang_tidy" in toolchain.clang_tidy and Path(toolchain.clang_tidy).is_file()
    assert (toolchain.pmd_home / "lib").is_dir()
    assert toolchain.testlib_h.is_file()
    assert Path(toolchain.javac).name == "javac"


def test_empty_prefix_names_missing_tools_and_their_install_commands(tmp_path: Path) -> None:
    with pytest.raises(ToolchainError) as caught:
        Toolchain.discover(tmp_path)
    message = str(caught.value)
    assert "pmd: missing" in message and "testlib: missing" in message
    assert "npm install --ignore-scripts" in message
    assert f"linteval-ray toolchain install --prefix {tmp_path}" in message
    assert "gxx" not in message  # system tools are found wherever the prefix points


def test_prefix_comes_from_the_environment_first(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("LINTEVAL_TOOLCHAIN_DIR", str(tmp_path))
    assert default_prefix() == tmp_path.resolve()


def test_prefix_defaults_to_the_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LINTEVAL_TOOLCHAIN_DIR", raising=False)
    checkout = Path(__file__).resolve().parents[2]
    assert default_prefix() == checkout / ".toolchain"
