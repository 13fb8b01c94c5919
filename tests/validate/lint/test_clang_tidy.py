from __future__ import annotations

import pytest

from linteval_ray.languages.cpp.clang_tidy import ClangTidy, ClangTidyConfig, line_starts, offset_to_line_column
from linteval_ray.toolchain import Toolchain
from linteval_ray.validate.lint import LintError, Linters
from linteval_ray.validate.lint.profiles import load_profile

CLEAN = "auto main() -> int { return 0; }\n"


def checks(messages):
    return {m.check_name for m in messages}


def test_byte_offsets_become_lines_and_byte_columns() -> None:
    data = "ab\né\nx".encode()
    starts = line_starts(data)
    assert offset_to_line_column(starts, 0) == (1, 1)
    assert offset_to_line_column(starts, 3) == (2, 1)
    assert offset_to_line_column(starts, 6) == (3, 1)  # 'é' is two bytes


def test_use_nullptr_at_its_line_and_column_after_multibyte_text(linters: Linters) -> None:
    line2 = 'auto main() -> int { const char *s = "ü"; int *p = 0; return s != p ? 1 : 0; }'
    code = "// çà ñ\n" + line2 + "\n"
    (messages,) = linters.lint("cpp", [code])
    (nullptr,) = [m for m in messages if m.check_name == "modernize-use-nullptr"]
    assert (nullptr.line, nullptr.column) == (2, len(line2[: line2.index("0;")].encode()) + 1)
    assert nullptr.file == "sol.cpp" and nullptr.category == "modernize"
    assert nullptr.message_identity == "modernize-use-nullptr::use nullptr"


def test_dataset_style_compiler_diagnostics(linters: Linters) -> None:
    code = ('#pragma comment(linker, "/STACK:102400000")\n#include <vector>\n'
            "auto main() -> int {\n  std::vector<int> vec{1};\n  register int total = 0;\n"
            "  for (int idx = 0; idx < vec.size(); idx++) { total += vec[idx]; }\n  return total;\n}\n")
    (messages,) = linters.lint("cpp", [code])
    by_check = {m.check_name: m for m in messages}
    pragmas = by_check["clang-diagnostic-ignored-pragmas"]
    assert (pragmas.line, pragmas.column) == (1, 17)
    assert by_check["clang-diagnostic-register"].severity == "error"
    assert by_check["clang-diagnostic-sign-compare"].category == "other"  # needs -Wall -Wextra


def test_clean_file_and_batch_order(linters: Linters) -> None:
    nullptr = "auto main() -> int { int *ptr = 0; return ptr != nullptr ? 1 : 0; }\n"
    results = linters.lint("cpp", [nullptr, CLEAN, nullptr.replace("0;", "nullptr;")])
    assert "modernize-use-nullptr" in checks(results[0])
    assert results[1] == []
    assert "modernize-use-nullptr" not in checks(results[2])


def test_compile_error_is_messages_not_an_error(linters: Linters) -> None:
    (messages,) = linters.lint("cpp", ["auto main() -> int { return undefined_name; }\n"])
    assert "clang-diagnostic-error" in checks(messages)


def test_included_file_contents_do_not_leak(linters: Linters) -> None:
    (messages,) = linters.lint("cpp", ['#include "/etc/passwd"\n' + CLEAN])
    assert messages and all("root" not in m.message_text for m in messages)
    assert {m.message_text for m in messages if m.line == 0} == {"error in an included file"}


def test_device_include_ends(linters: Linters) -> None:
    (outcome,) = linters.lint_each("cpp", ['#include "/dev/zero"\n' + CLEAN])
    assert isinstance(outcome, (list, LintError))


def test_preprocessor_bomb_times_out_alone(toolchain: Toolchain) -> None:
    bomb = "\n".join(["#define X0 ;", *(f"#define X{i} X{i - 1} X{i - 1}" for i in range(1, 41)), "X40", CLEAN])
    config = ClangTidyConfig.load(load_profile().file("cpp"))
    tidy = ClangTidy(toolchain.path("clang_tidy"), config, file_name="sol.cpp", jobs=2, timeout_s=3.0)
    bombed, clean = tidy.lint_each([bomb, CLEAN])
    assert isinstance(bombed, LintError) and "timed out" in bombed.reason
    assert clean == []
    with pytest.raises(LintError):
        tidy.lint_many([bomb])


def test_config_is_pinned() -> None:
    config = ClangTidyConfig.load(load_profile().file("cpp"))
    assert config.checks.startswith("-*,clang-diagnostic-*,bugprone-*")
    assert {"-std=c++17", "-Wall", "-Wextra"} <= set(config.compile_args)
    broad = ClangTidyConfig.load(load_profile("broad").file("cpp"))
    assert broad.checks == "-*,bugprone-*,performance-*,modernize-*,readability-*,clang-diagnostic-*"


def test_constexpr_bomb_is_stopped_by_the_cpu_budget(toolchain: Toolchain) -> None:
    # clang re-evaluates every constexpr call (no memoization): ~40 CPU-s unbounded
    bomb = ("constexpr long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n"
            + "".join(f'static_assert(fib({25 + i % 3}) > {i}, "fib");\n' for i in range(40)) + CLEAN)
    config = ClangTidyConfig.load(load_profile().file("cpp"))
    tidy = ClangTidy(toolchain.path("clang_tidy"), config, file_name="sol.cpp", jobs=2, timeout_s=600.0, cpu_s=3.0)
    bombed, clean = tidy.lint_each([bomb, CLEAN])
    assert isinstance(bombed, LintError) and "CPU budget of 3 s exceeded" in bombed.reason
    assert clean == []
