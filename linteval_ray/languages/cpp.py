"""C++17: compiled by g++, linted by clang-tidy.

``g++ -std=c++17 -O2 -pipe -DONLINE_JUDGE``. ``ONLINE_JUDGE`` is defined as on Codeforces,
where these programs come from: many guard ``freopen("input.txt")`` with ``#ifndef
ONLINE_JUDGE``. libm comes with libstdc++ (no ``-lm`` needed) and linking is dynamic: the
box binds the host's /usr read-only, and a static link costs ~0.3 s more per compile for no
gain in isolation. testlib tools get ``-Og`` instead of ``-O2``: a tool compile is code
generation for testlib's templates, ~35 % less CPU at -Og than at -O1 (itself ~40 % less than
-O2), and tools only read and write text (no verdict depends on their speed beyond limits).
-Og runs a validator or checker within ~1.3x of -O1; -O0 would compile ~10 % faster still but
runs them 3-5x slower, on every test (bench/README.md, ``bench/setup.py``). Runs get
RLIMIT_STACK = the memory limit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from linteval_ray.languages.base import CompileCommand, CompileRequest, LanguageSpec, RunRequest, stack_limit_prefix
from linteval_ray.languages.registry import register_language

if TYPE_CHECKING:
    from linteval_ray.validate.lint.base import Linter

SOURCE_FILE = "sol.cpp"
BINARY = "prog"
CXX_FLAGS = ("-std=c++17", "-O2", "-pipe", "-DONLINE_JUDGE")
# testlib tools (generator, validator, checker): -Og compiles ~35% faster than -O1 (the time
# is code generation of testlib's templates) and runs I/O-bound tools nearly as fast.
TOOL_CXX_FLAGS = ("-std=c++17", "-Og", "-pipe", "-DONLINE_JUDGE")


def cxx_flags(for_tools: bool) -> tuple[str, ...]:
    return TOOL_CXX_FLAGS if for_tools else CXX_FLAGS


def gxx_argv(
    gxx: str, source: str, *, for_tools: bool = False, include_dirs: tuple[str, ...] = (), output: str = BINARY
) -> list[str]:
    """The g++ command line; ``include_dirs`` come first on the include path, in order."""
    include = [arg for folder in include_dirs for arg in ("-I", folder)]
    return [gxx, *cxx_flags(for_tools), *include, "-o", output, source]


def compile_command(request: CompileRequest) -> CompileCommand:
    argv = gxx_argv(request.gxx, SOURCE_FILE, for_tools=request.for_tools, include_dirs=request.include_dirs)
    return CompileCommand(source=SOURCE_FILE, argv=tuple(argv), entry=BINARY)


def run_argv(request: RunRequest) -> list[str]:
    return [*stack_limit_prefix(request.memory_mb), f"{request.program_dir}/{request.entry}", *request.args]


def clang_tidy() -> type[Linter]:
    from linteval_ray.validate.lint.clang_tidy import ClangTidy  # here: the lint package imports this one

    return ClangTidy


CPP = LanguageSpec(
    name="cpp",
    display_name="C++",
    prompt_fence_tag="cpp",
    fence_tags=frozenset({"cpp", "c++", "cc", "cxx", "hpp", "h++", "c"}),
    bare_code_test="not_prose",
    source_file=SOURCE_FILE,
    linter_tool="clang-tidy",
    linter_name="clang-tidy",
    linter_class=clang_tidy,
    compile_command=compile_command,
    run_argv=run_argv,
    compile_flags=CXX_FLAGS,
    tool_compile_flags=TOOL_CXX_FLAGS,
    precompiled_headers=True,
)

register_language(CPP)
