from __future__ import annotations

import sys

from linteval_ray.validate.lint import LintError, Linters
from linteval_ray.validate.lint.profiles import load_profile
from linteval_ray.validate.lint.pylint import Pylint

CLEAN = '"""A clean module."""\n\nprint(sum(int(part) for part in input().split()))\n'


def checks(messages):
    return {m.check_name for m in messages}


def test_missing_final_newline_as_in_the_dataset(linters: Linters) -> None:
    (messages,) = linters.lint("py3", ['n, k = map(int, input().split(" "))\nprint(max(n, k))'])
    (newline,) = [m for m in messages if m.check_name == "missing-final-newline"]
    assert (newline.line, newline.column, newline.severity, newline.category) == (2, 0, "warning", "readability")
    assert newline.message_identity == "missing-final-newline::Final newline missing"
    assert newline.file == "sol.py"


def test_clean_file_and_batch_order(linters: Linters) -> None:
    results = linters.lint("py3", ["import os\n", CLEAN, '"""Doc."""\nimport sys\n'])
    assert "unused-import" in checks(results[0]) and "Unused import os" in {m.message_text for m in results[0]}
    assert results[1] == []
    assert {m.message_text for m in results[2] if m.check_name == "unused-import"} == {"Unused import sys"}


def test_no_stale_results_between_calls(linters: Linters) -> None:
    (first,) = linters.lint("py3", ['"""Doc."""\nimport os\n'])
    (second,) = linters.lint("py3", ['"""Doc."""\nimport os\n\nprint(os.sep)\n'])
    assert "unused-import" in checks(first)
    assert second == []


def test_identical_files_in_one_batch_do_not_report_duplicate_code(linters: Linters) -> None:
    body = "".join(f"value_{i} = int(input())\nprint(value_{i} * {i})\n" for i in range(8))
    results = linters.lint("py3", [body, body])
    assert "duplicate-code" not in checks(results[0]) | checks(results[1])
    assert results[0] == results[1]


def test_syntax_error_is_a_message_with_a_stable_text(linters: Linters) -> None:
    (messages,) = linters.lint("py3", ["x = (\n"])
    (error,) = [m for m in messages if m.check_name == "syntax-error"]
    assert "(sol, line 1)" in error.message_text and error.severity == "error"


def test_slow_file_times_out_and_the_worker_recovers() -> None:
    pylint = Pylint(sys.executable, load_profile().file("pylintrc"), timeout_s=2.0)
    try:
        slow = "".join(f"v{i} = [{i}] * {i}\n" for i in range(60000))
        slow_outcome, after = pylint.lint_each([slow, CLEAN])
        assert isinstance(slow_outcome, LintError) and "timed out" in slow_outcome.reason
        assert after == []
    finally:
        pylint.close()
