"""C++17: compiled by g++ (``commands.py``), linted by clang-tidy (``clang_tidy.py``).

testlib's generators, validators and checkers are C++ too: they compile as this language
(with ``TOOL_CXX_FLAGS``), with testlib.h precompiled once per node.
"""

from __future__ import annotations

from pathlib import Path

from linteval_ray.languages.base import LanguageSpec, PlanFigures, PrecompiledHeaders
from linteval_ray.languages.cpp import categories, commands, derive, suppressions, tools
from linteval_ray.languages.cpp.clang_tidy import ClangTidy

SPEC = LanguageSpec(
    name="cpp",
    display_name="C++",
    prompt_fence_tag="cpp",
    fence_tags=frozenset({"cpp", "c++", "cc", "cxx", "hpp", "h++", "c"}),
    bare_code_test="not_prose",
    source_file=commands.SOURCE_FILE,
    linter=ClangTidy,
    linter_name="clang-tidy",
    lint_config="clang-tidy.yaml",
    profiles_dir=Path(__file__).with_name("profiles"),
    alert_families=categories.FAMILY_TO_PAPER,
    suppressions=suppressions.RULES,
    derive_config=derive.clang_tidy_config,
    tools=(tools.GXX, tools.CLANG_TIDY),
    compile_command=commands.compile_command,
    run_argv=commands.run_argv,
    stack_at_memory_limit=True,
    compile_flags=commands.CXX_FLAGS,
    tool_compile_flags=commands.TOOL_CXX_FLAGS,
    testlib_tools=True,
    precompiled_headers=PrecompiledHeaders(compiler="gxx", header_language="c++-header",
                                           program_header="bits/stdc++.h"),
    plan=PlanFigures(validation_cpu_s=18.0, measured="cpp 55.7 s / 3 samples", lite_samples=244),
)
