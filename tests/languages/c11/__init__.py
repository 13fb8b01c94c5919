"""C11, a language defined outside the package: compiled by the toolchain's g++ as C (``-x c``),
linted by its clang-tidy with C checks. ``LINTEVAL_RAY_LANGUAGES=tests.languages.c11`` registers
it in every process (tests/languages/test_plugin.py); nothing in ``linteval_ray`` names it."""

from __future__ import annotations

from pathlib import Path

from linteval_ray.languages.base import CompileCommand, CompileRequest, LanguageSpec, RunRequest
from linteval_ray.languages.cpp import categories, derive, suppressions, tools
from linteval_ray.languages.cpp.clang_tidy import ClangTidy

SOURCE_FILE = "sol.c"
BINARY = "prog"
FLAGS = ("-x", "c", "-std=c11", "-O2", "-pipe", "-DONLINE_JUDGE")


def compile_command(request: CompileRequest) -> CompileCommand:
    include = [arg for folder in request.include_dirs for arg in ("-I", folder)]
    argv = (request.tools["gxx"], *FLAGS, *include, "-o", BINARY, SOURCE_FILE, "-lm")
    return CompileCommand(source=SOURCE_FILE, argv=argv, entry=BINARY)


def run_argv(request: RunRequest) -> list[str]:
    return [f"{request.program_dir}/{request.entry}", *request.args]


SPEC = LanguageSpec(
    name="c11",
    display_name="C",
    prompt_fence_tag="c",
    fence_tags=frozenset({"c11"}),
    bare_code_test="not_prose",
    source_file=SOURCE_FILE,
    linter=ClangTidy,
    linter_name="clang-tidy",
    lint_config="clang-tidy-c.yaml",
    profiles_dir=Path(__file__).with_name("profiles"),
    alert_families=categories.FAMILY_TO_PAPER,
    suppressions=suppressions.RULES,
    derive_config=derive.clang_tidy_config,
    tools=(tools.GXX, tools.CLANG_TIDY),
    compile_command=compile_command,
    run_argv=run_argv,
    stack_at_memory_limit=True,
    compile_flags=FLAGS,
    tool_compile_flags=FLAGS,
)
