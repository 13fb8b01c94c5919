"""Python 2, a judge-only language: Python 3's spec run by Python 2.7, unknown to records and reports,
known to the judge and the toolchain; its install unpacks pinned .debs without dpkg."""

from __future__ import annotations

import io
import subprocess
import tarfile
from pathlib import Path

import pytest

from linteval_ray.languages import CompileRequest, RunRequest, language
from linteval_ray.languages.registry import judge_only_languages, language_names
from linteval_ray.toolchain import Toolchain, ToolchainError
from linteval_ray.toolchain.install import unpack_deb
from linteval_ray.toolchain.tools import tools

PY2 = language("py2")


def test_python2_is_judge_only_and_its_interpreter_is_a_tool() -> None:
    assert "py2" not in language_names() and [spec.name for spec in judge_only_languages()] == ["py2"]
    assert PY2.display_name == "Python 2" and PY2.interpreter == "python2" and PY2.source_file == "sol.py"
    assert dict(PY2.output_env) == {"PYTHONHASHSEED": "0"} and PY2.stack_at_memory_limit  # Python 3's runs
    row = next(spec for spec in tools() if spec.name == "python2")
    assert not row.required and row.pin.expected == "2.7.18"
    assert row.box_folder is not None and row.box_folder(Path("/p/python2.7/usr/bin/python2.7")) == Path("/p/python2.7")
    assert [deb.pool_path.rsplit("/", 1)[-1] for deb in row.install.debs] == [  # type: ignore[union-attr]
        "libpython2.7-minimal_2.7.18-8+deb11u1_amd64.deb", "python2.7-minimal_2.7.18-8+deb11u1_amd64.deb",
        "libpython2.7-stdlib_2.7.18-8+deb11u1_amd64.deb", "python2.7_2.7.18-8+deb11u1_amd64.deb"]


def test_runs_start_the_script_with_python2() -> None:
    argv = PY2.run_argv(RunRequest(entry="sol.py", program_dir="/prog", memory_mb=256, tools={"python2": "/py2"}))
    assert argv == ["/py2", "/prog/sol.py"]


@pytest.mark.parametrize(("code", "error"), [("print 1\n", None), ("print(1\n", "SyntaxError"),
                                             ("x = 1\0\n", "null bytes")])
def test_the_syntax_check_is_python2s_and_names_the_error(tmp_path: Path, code: str, error: str | None) -> None:
    try:
        python2 = Toolchain.discover().path("python2")
    except ToolchainError:
        pytest.skip("Python 2.7 is not installed: run `linteval-ray toolchain install`")
    command = PY2.compile_command(CompileRequest(code=code, tools={"python2": python2}))
    (tmp_path / command.source).write_text(code)
    check = subprocess.run(list(command.argv), cwd=tmp_path, capture_output=True, text=True, check=False)
    assert check.stdout == ""  # compiled, not run
    if error is None:
        assert check.returncode == 0, check.stderr
    else:
        assert check.returncode == 1 and error in check.stderr


def _deb(files: dict[str, bytes]) -> bytes:
    """A .deb as dpkg-deb writes one: an ar archive of debian-binary, control.tar.xz and data.tar.xz."""
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:xz") as tar:
        for name, content in files.items():
            info = tarfile.TarInfo(f"./{name}")
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
    members = [("debian-binary", b"2.0\n"), ("control.tar.xz", b"\xfd7zXZ"), ("data.tar.xz", data.getvalue())]
    out = b"!<arch>\n"
    for name, content in members:
        header = f"{name:<16}{0:<12}{0:<6}{0:<6}{100644:<8}{len(content):<10}`\n".encode()
        out += header + content + (b"\n" if len(content) % 2 else b"")
    return out


def test_a_deb_is_unpacked_without_dpkg(tmp_path: Path) -> None:
    deb = _deb({"usr/bin/tool": b"#!/bin/sh\n", "usr/lib/tool/data.txt": b"odd"})
    unpack_deb(deb, tmp_path)
    assert (tmp_path / "usr/bin/tool").read_bytes() == b"#!/bin/sh\n"
    assert (tmp_path / "usr/lib/tool/data.txt").read_bytes() == b"odd"
    with pytest.raises(ValueError, match="no ar header"):
        unpack_deb(b"PK\x03\x04", tmp_path)
