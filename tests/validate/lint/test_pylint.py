from __future__ import annotations

import sys
from pathlib import Path

import platformdirs

from linteval_ray.languages.py3.pylint import Pylint
from linteval_ray.validate.lint import LintError, Linters
from linteval_ray.validate.lint.profiles import load_profile

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


def test_slow_file_exceeds_its_cpu_budget_and_the_worker_recovers() -> None:
    # CPU, not wall time: the same file fails the same way on an idle and on a loaded host
    pylint = Pylint(sys.executable, load_profile().file("py3"), file_name="sol.py", timeout_s=300.0, cpu_s=2.0)
    try:
        slow = "".join(f"v{i} = [{i}] * {i}\n" for i in range(60000))
        slow_outcome, after = pylint.lint_each([slow, CLEAN])
        assert isinstance(slow_outcome, LintError) and "exceeded its CPU budget" in slow_outcome.reason
        assert after == []
    finally:
        pylint.close()


def _pid(pylint: Pylint) -> int:
    assert pylint._worker is not None
    return pylint._worker.proc.pid


def test_memory_hog_in_dead_code_is_bounded_and_the_bloated_worker_replaced() -> None:
    # Never run, but inferred: ten 100 MB strings astroid keeps (~100 MB resident after the file)
    # and two 800 MB lists past the worker's 768 MB address space (MemoryError inside astroid).
    hog = ('"""Doc."""\nimport sys\n\nif len(sys.argv) > 5:\n'
           + "".join(f'    S{i} = "{i}" * 10**8\n    print(S{i}.upper())\n' for i in range(10))
           + "".join(f"    L{i} = [{i}] * 10**8\n    print(len(L{i}))\n" for i in range(2)))
    pylint = Pylint(sys.executable, load_profile().file("py3"), file_name="sol.py", cpu_s=60.0, memory_mb=768,
                    max_rss_mb=130)
    try:
        assert pylint.lint_each([CLEAN]) == [[]]
        fresh = _pid(pylint)
        (bounded,) = pylint.lint_each([hog])
        assert isinstance(bounded, LintError) and "astroid-error" in bounded.reason
        assert pylint._worker is not None and pylint._worker.rss_mb() > 130  # what the hog left behind
        assert pylint.lint_each([CLEAN]) == [[]]  # an honest revision lints fine...
        assert _pid(pylint) != fresh  # ...in a new worker
    finally:
        pylint.close()


def test_crash_reports_stay_in_a_private_pylint_home(tmp_path: Path) -> None:
    """pylint writes a crash report quoting the file's source into PYLINTHOME: ours is a temp dir
    per worker, emptied after each file and removed with the worker; the user's cache gets nothing."""
    user_cache = Path(platformdirs.user_cache_dir("pylint"))
    before = set(user_cache.glob("*")) if user_cache.is_dir() else set()
    marker = f"SOURCE_MARKER_{tmp_path.name}"
    crash = f'"""{marker}"""\n\n\ndef unused():\n    return ' + " + ".join(["1"] * 900) + "\n"
    pylint = Pylint(sys.executable, load_profile().file("py3"), file_name="sol.py")
    try:
        (crashed,) = pylint.lint_each([crash])
        assert isinstance(crashed, LintError) and "astroid-error" in crashed.reason
        home = pylint.home
        assert home is not None and home.is_dir() and not home.is_relative_to(user_cache)
        assert list(home.glob("pylint-crash-*")) == []  # read for the exception name, then deleted
    finally:
        pylint.close()
    assert not home.exists()
    after = set(user_cache.glob("*")) if user_cache.is_dir() else set()
    assert not [p for p in after - before if p.is_file() and marker in p.read_text(errors="replace")]
    assert not [p for p in after - before if p.name.startswith("pylint-crash-")]
