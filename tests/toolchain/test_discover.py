from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import linteval_ray
from linteval_ray.toolchain import Toolchain, ToolchainError, default_prefix
from linteval_ray.toolchain.discover import environment_prefix, record_prefix, recorded_prefix


def test_discover_finds_every_tool_on_this_machine(toolchain: Toolchain) -> None:
    assert Path(toolchain.path("gxx")).name == "g++"
    # the PyPI wheel's binary, not Debian's /usr/bin/clang-tidy
    assert "clang_tidy" in toolchain.path("clang_tidy") and Path(toolchain.path("clang_tidy")).is_file()
    assert (Path(toolchain.path("pmd")) / "lib").is_dir()
    assert toolchain.testlib_h.is_file()
    assert Path(toolchain.path("javac")).name == "javac"


def test_empty_prefix_names_missing_tools_and_their_install_commands(tmp_path: Path) -> None:
    with pytest.raises(ToolchainError) as caught:
        Toolchain.discover(tmp_path)
    message = str(caught.value)
    assert "pmd: missing" in message and "testlib: missing" in message
    assert "npm install --ignore-scripts" in message
    assert f"linteval-ray toolchain install --prefix {tmp_path}" in message
    assert "gxx" not in message  # system tools are found wherever the prefix points


def test_prefix_comes_from_the_environment_variable_first(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "env"))
    record_prefix(tmp_path / "recorded")
    monkeypatch.setenv("LINTEVAL_TOOLCHAIN_DIR", str(tmp_path / "from-env"))
    assert default_prefix() == (tmp_path / "from-env").resolve()


def test_prefix_defaults_to_the_python_environment_not_the_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LINTEVAL_TOOLCHAIN_DIR", raising=False)
    if recorded_prefix() is None:
        assert default_prefix() == Path(sys.prefix) / "share" / "linteval-ray" / "toolchain"
    checkout = Path(__file__).resolve().parents[2]
    assert default_prefix() != checkout / ".toolchain"


def test_a_recorded_prefix_wins_over_the_environment_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("LINTEVAL_TOOLCHAIN_DIR", raising=False)
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "env"))
    assert default_prefix() == tmp_path / "env" / "share" / "linteval-ray" / "toolchain"

    written = record_prefix(tmp_path / "tools")

    assert written == tmp_path / "env" / "share" / "linteval-ray" / "toolchain-prefix"
    assert default_prefix() == (tmp_path / "tools").resolve()


def test_discovery_does_not_depend_on_where_the_package_files_are(toolchain: Toolchain, tmp_path: Path) -> None:
    """A Ray job imports the package from its uploaded working dir, which holds no toolchain.

    Run without LINTEVAL_* variables, as from a user's shell: the environment's own prefix is found."""
    upload = tmp_path / "working_dir"
    shutil.copytree(Path(linteval_ray.__file__).parent, upload / "linteval_ray",
                    ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("LINTEVAL_")}
    code = "import linteval_ray; from linteval_ray.toolchain import Toolchain; " \
           "print(linteval_ray.__file__); print(Toolchain.discover().prefix)"
    proc = subprocess.run([sys.executable, "-c", code], cwd=upload, env={**env, "PYTHONPATH": str(upload)},
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    package_file, prefix = proc.stdout.split()
    assert package_file.startswith(str(upload))
    assert Path(prefix) == (recorded_prefix() or environment_prefix())
