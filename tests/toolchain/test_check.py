from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from linteval_ray.toolchain import Toolchain, check
from linteval_ray.toolchain.check import main
from linteval_ray.toolchain.discover import default_prefix, recorded_prefix_file


def test_check_passes_after_install(toolchain: Toolchain) -> None:
    report = check(toolchain.prefix)
    assert report.ok, [t for t in report.tools if not t.ok]
    assert {t.tool for t in report.tools} >= {"gxx", "clang_tidy", "java", "javac", "pmd", "testlib", "pylint"}


def test_check_reports_missing_tools_with_install_commands(tmp_path: Path) -> None:
    report = check(tmp_path)
    assert not report.ok
    by_tool = {t.tool: t for t in report.tools}
    for tool in ("pmd", "testlib"):
        assert by_tool[tool].problem == "missing"
        assert "linteval-ray toolchain install" in (by_tool[tool].install_command or "")
    assert by_tool["gxx"].ok


def test_cli_check_json(toolchain: Toolchain, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--json", "--prefix", str(toolchain.prefix)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert {t["tool"]: t["ok"] for t in report["tools"]}["pmd"] is True


def test_cli_check_fails_on_an_empty_prefix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--prefix", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "MISSING  pmd" in out and "toolchain INCOMPLETE" in out


def test_install_with_a_prefix_records_it_for_this_python_environment(
    toolchain: Toolchain, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("LINTEVAL_TOOLCHAIN_DIR", raising=False)
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "env"))  # a fresh environment with nothing recorded
    assert default_prefix() != toolchain.prefix

    assert main(["install", "--prefix", str(toolchain.prefix)]) == 0  # every step "present": nothing downloaded

    assert f"prefix        installed {toolchain.prefix} recorded in" in capsys.readouterr().out
    assert default_prefix() == toolchain.prefix
    assert Toolchain.discover().prefix == toolchain.prefix


def test_install_without_a_prefix_installs_where_discovery_looks_and_records_nothing(
    toolchain: Toolchain, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "env"))
    monkeypatch.setenv("LINTEVAL_TOOLCHAIN_DIR", str(toolchain.prefix))  # e.g. the cluster image's

    assert main(["install"]) == 0

    assert f"toolchain prefix: {toolchain.prefix}" in capsys.readouterr().out
    assert not recorded_prefix_file().exists()
