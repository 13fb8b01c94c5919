"""The ``compat`` judging profile: what the published CodeContests-O harness does, reproduced.

Read in its sources (github.com/cai-jianfeng/CodeContests-O ``core/validator.py``,
``utils/helpers.py``, ``clients/sandbox_client.py``; its SandboxFusion fork ``runners/major.py``):

- a test passes when the output equals the expected answer, or a lenient line comparison accepts
  it (``harness_accepts``: both stripped, split at newlines, the same number of lines, each pair
  equal lower-cased and stripped, or both parse as floats within a relative 1e-5), or else when
  the problem's checker run on (input, output, answer) exits 0; any other exit rejects it (the
  harness tells no checker failure from a wrong answer), and a checker that does not compile
  rejects every output it is asked about (the line comparison still decides);
- every test runs for at most 20 s of wall-clock time (``run_timeout``), compiled again each time;
- C++ is ``g++ -std=c++17 sol.cpp -o test -lpthread``: no ``-O2``, no ``ONLINE_JUDGE``;
- Java is always ``Main.java``, run as ``java -ea Main`` (assertions on, no ``ONLINE_JUDGE``);
- Python solutions labelled Python 2 run on Python 3 (here: every Python answer runs on Python 3).

Kept from the engine: the sandbox and its memory limit (the harness sets none: ``compat_memory_mb``,
2 GB by default), compiling once per solution (the same program each time), and extraction
(the last block of the language, not the harness's first: docs/tasks.md).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from linteval_ray.languages.base import CompileCommand, CompileRequest, LanguageSpec, RunRequest
from linteval_ray.languages.registry import language, register_variant

WALL_S = 20.0  # the harness's run_timeout, per test
WALL_GRACE_S = 1.0  # our wall clock stops a second later: RLIMIT_CPU ends a computing program first, in one run
RELATIVE_TOLERANCE = 1e-5
CXX_FLAGS = ("-std=c++17", "-pipe")
ONLINE_JUDGE_JVM = "-DONLINE_JUDGE=true"


def harness_accepts(expected: str, output: str) -> bool:
    """``check_output_equal(expected, output)`` of the published harness, line for line."""
    if expected == output:
        return True
    expected_lines = expected.strip().split("\n")
    output_lines = output.strip().split("\n")
    if len(output_lines) - len(expected_lines) == 1 and output_lines[-1] == "":
        output_lines = output_lines[:-1]
    if len(expected_lines) - len(output_lines) == 1 and expected_lines[-1] == "":
        expected_lines = expected_lines[:-1]
    if len(output_lines) != len(expected_lines):
        return False
    for got, want in zip(output_lines, expected_lines, strict=True):
        got, want = got.lower(), want.lower()
        if got.strip() == want.strip():
            continue
        if _is_float(want) and _is_float(got) and _float_equal(float(got), float(want)):
            continue
        return False
    return True


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _float_equal(a: float, b: float) -> bool:
    return abs(a - b) / max(abs(b), 1e-10) < RELATIVE_TOLERANCE


def _cpp_compile(request: CompileRequest) -> CompileCommand:
    """``g++ -std=c++17 ... -o prog sol.cpp -lpthread``: the harness's line (with the node's
    precompiled headers on the include path, which change no program)."""
    include = [arg for folder in request.include_dirs for arg in ("-I", folder)]
    argv = (request.tools["gxx"], *CXX_FLAGS, *include, "-o", "prog", "sol.cpp", "-lpthread")
    return CompileCommand(source="sol.cpp", argv=argv, entry="prog")


def _java_compile(base: LanguageSpec) -> Callable[[CompileRequest], CompileCommand]:
    def compile_command(request: CompileRequest) -> CompileCommand:
        command = base.compile_command(request)
        argv = tuple("Main.java" if arg == command.source else arg for arg in command.argv)
        return CompileCommand(source="Main.java", argv=argv, entry="Main")
    return compile_command


def _java_run(base: LanguageSpec) -> Callable[[RunRequest], list[str]]:
    def run_argv(request: RunRequest) -> list[str]:
        argv = [arg for arg in base.run_argv(request) if arg != ONLINE_JUDGE_JVM]
        at = argv.index("-cp")
        return [*argv[:at], "-ea", *argv[at:]]
    return run_argv


def _variants() -> dict[str, str]:
    """Register the profile's C++ and Java (language -> the variant's name)."""
    cpp, java = language("cpp"), language("java")
    names = {"cpp": "cpp+compat", "java": "java+compat"}
    register_variant(dataclasses.replace(cpp, name=names["cpp"], compile_command=_cpp_compile, compile_flags=CXX_FLAGS))
    register_variant(dataclasses.replace(java, name=names["java"], compile_command=_java_compile(java),
                                         run_argv=_java_run(java), compile_flags=(*java.compile_flags, "Main.java")))
    return names


VARIANTS = _variants()


def compiled_as(language_name: str) -> str:
    """The language (or variant) a compat solution in ``language_name`` compiles and runs as."""
    return VARIANTS.get(language_name, language_name)
