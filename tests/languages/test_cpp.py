"""C++: g++ flags, include order, the run command line, and what prompts and extraction use."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from linteval_ray.languages import CompileRequest, RunRequest, language
from linteval_ray.languages.cpp.commands import CXX_FLAGS, TOOL_CXX_FLAGS

CPP = language("cpp")
ONLINE_JUDGE_PROGRAM = """#include <cstdio>
int main() {
#ifndef ONLINE_JUDGE
    std::freopen("input.txt", "r", stdin);
#endif
    std::puts("judged");
}
"""


def request(**overrides: object) -> CompileRequest:
    fields: dict[str, object] = {"code": "int main() {}", "tools": {"gxx": "/usr/bin/g++"}}
    return CompileRequest(**{**fields, **overrides})  # type: ignore[arg-type]


def test_prompts_and_extraction_facts() -> None:
    assert (CPP.display_name, CPP.prompt_fence_tag, CPP.linter_name) == ("C++", "cpp", "clang-tidy")
    assert {"cpp", "c++", "cc", "cxx", "c"} <= CPP.fence_tags and "python" not in CPP.fence_tags
    assert CPP.bare_code_test == "not_prose"


def test_a_submission_compiles_with_o2_and_online_judge_into_one_binary() -> None:
    command = CPP.compile_command(request())
    assert command.source == CPP.source_file == "sol.cpp"
    assert command.argv == ("/usr/bin/g++", "-std=c++17", "-O2", "-pipe", "-DONLINE_JUDGE", "-o", "prog", "sol.cpp")
    assert command.entry == "prog"
    assert CPP.flags(for_tools=False) == CXX_FLAGS


def test_testlib_tools_compile_at_o1_with_their_include_folders_in_order() -> None:
    command = CPP.compile_command(request(for_tools=True, include_dirs=("/pch", "/testlib")))
    assert command.argv == ("/usr/bin/g++", *TOOL_CXX_FLAGS, "-I", "/pch", "-I", "/testlib", "-o", "prog", "sol.cpp")
    assert "-Og" in TOOL_CXX_FLAGS and CPP.flags(for_tools=True) == TOOL_CXX_FLAGS


def test_a_run_may_grow_its_stack_to_the_memory_limit_and_needs_no_more_address_space() -> None:
    argv = CPP.run_argv(RunRequest(entry="prog", program_dir="/prog", memory_mb=256, tools={},
                                   args=("a", "b")))
    assert argv == ["/prog/prog", "a", "b"]
    assert CPP.address_space_mb(256) == 256
    assert CPP.run_env() == {} and CPP.compile_env() is None
    assert CPP.precompiled_headers is not None and CPP.interpreter is None


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")
def test_online_judge_is_defined_as_on_codeforces(tmp_path: Path) -> None:
    (tmp_path / "sol.cpp").write_text(ONLINE_JUDGE_PROGRAM)
    subprocess.run(CPP.compile_command(request(tools={"gxx": "g++"})).argv, cwd=tmp_path, check=True)
    run = subprocess.run([str(tmp_path / "prog")], cwd=tmp_path, input=b"", capture_output=True, check=True)
    assert run.stdout == b"judged\n"  # no input.txt needed
