"""Python 3: the in-box syntax check, the run command line and its fixed hash seed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from linteval_ray.languages import CompileRequest, RunRequest, language

PY3 = language("py3")


def test_prompts_and_extraction_facts() -> None:
    assert (PY3.display_name, PY3.prompt_fence_tag, PY3.linter_name) == ("Python 3", "python", "pylint")
    assert PY3.fence_tags == {"python", "python3", "py", "py3"}
    assert PY3.bare_code_test == "python_program"


def test_compiling_is_a_syntax_check_of_sol_py() -> None:
    command = PY3.compile_command(CompileRequest(code="print(1)", tools={"python": "/usr/bin/python3"}))
    assert command.source == command.entry == PY3.source_file == "sol.py"
    assert command.argv[:2] == ("/usr/bin/python3", "-c") and command.argv[-1] == "sol.py"


@pytest.mark.parametrize(
    ("code", "error"),
    [("print(1)\n", None), ("def f(:\n", "SyntaxError"), ("x = 1\0\n", "source code")],
)
def test_the_syntax_check_names_the_error_and_never_runs_the_program(
    tmp_path: Path, code: str, error: str | None
) -> None:
    command = PY3.compile_command(CompileRequest(code=code, tools={"python": sys.executable}))
    (tmp_path / command.source).write_text(code)
    check = subprocess.run(list(command.argv), cwd=tmp_path, capture_output=True, text=True, check=False)
    assert check.stdout == ""  # print(1) was compiled, not run
    if error is None:
        assert check.returncode == 0, check.stderr
    else:
        assert check.returncode == 1 and error in check.stderr


def test_runs_start_the_script_with_a_fixed_hash_seed_and_a_deep_stack() -> None:
    argv = PY3.run_argv(RunRequest(entry="sol.py", program_dir="/prog", memory_mb=512,
                                   tools={"python": "/usr/bin/python3"}, args=("x",)))
    assert argv == ["/usr/bin/python3", "/prog/sol.py", "x"]
    assert PY3.run_env() == {"PYTHONHASHSEED": "0"} == dict(PY3.output_env)
    assert PY3.compile_env() is None and PY3.address_space_mb(512) == 512
    assert PY3.interpreter == "python" and PY3.precompiled_headers is None
