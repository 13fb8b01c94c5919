from __future__ import annotations

import json
from pathlib import Path

import pytest

from linteval_ray.toolchain import Toolchain, check
from linteval_ray.toolchain.check import main


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
