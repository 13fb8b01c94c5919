"""How C++17 compiles and runs: g++ command lines.

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

from linteval_ray.languages.base import CompileCommand, CompileRequest, RunRequest

SOURCE_FILE = "sol.cpp"
BINARY = "prog"
CXX_FLAGS = ("-std=c++17", "-O2", "-pipe", "-DONLINE_JUDGE")
# testlib tools (generator, validator, checker): -Og compiles ~35% faster than -O1 (the time
# is code generation of testlib's templates) and runs I/O-bound tools nearly as fast.
TOOL_CXX_FLAGS = ("-std=c++17", "-Og", "-pipe", "-DONLINE_JUDGE")


def compile_command(request: CompileRequest) -> CompileCommand:
    """``g++ FLAGS [-I dir]... -o prog sol.cpp``; ``include_dirs`` come first on the include path, in order."""
    include = [arg for folder in request.include_dirs for arg in ("-I", folder)]
    flags = TOOL_CXX_FLAGS if request.for_tools else CXX_FLAGS
    argv = (request.tools["gxx"], *flags, *include, "-o", BINARY, SOURCE_FILE)
    return CompileCommand(source=SOURCE_FILE, argv=argv, entry=BINARY)


def run_argv(request: RunRequest) -> list[str]:
    return [f"{request.program_dir}/{request.entry}", *request.args]
