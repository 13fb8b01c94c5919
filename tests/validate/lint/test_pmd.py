from __future__ import annotations

from pathlib import Path

import pytest

from linteval_ray.languages.java.pmd import PARSE_ERROR_CHECK, Pmd
from linteval_ray.schema.record import LintMessage
from linteval_ray.toolchain import Toolchain
from linteval_ray.validate.lint import LintError, Linters
from linteval_ray.validate.lint.profiles import load_profile

BRACES = """public class Main {
    public static void main(String[] args) {
        int x = args.length;
        if (x == 1) System.out.println("é" + x);
    }
}
"""
CLEAN = """package solution;

/** A clean class. */
public final class Main {
    private Main() { }

    /** Entry point. */
    public static void main(String[] args) {
        System.out.println(args.length);
    }
}
"""
BROKEN = "public class Main {\n  void f( {\n}\n"


@pytest.fixture(scope="module")
def batch(linters: Linters) -> list[list[LintMessage] | LintError]:
    """One JVM for the whole module: PMD's start-up dominates."""
    return linters.lint_each("java", [BRACES, CLEAN, BROKEN, BRACES.replace("(x == 1)", "(x == 2)")])


def test_rule_at_its_line_and_column(batch: list) -> None:
    (braces,) = [m for m in batch[0] if m.check_name == "ControlStatementBraces"]
    assert (braces.line, braces.column, braces.category) == (4, 21, "codestyle")
    assert braces.file == "Main.java" and braces.tool == "pmd"
    assert "NoPackage" in {m.check_name for m in batch[0]}


def test_clean_file_and_batch_order(batch: list) -> None:
    assert batch[1] == []
    assert [m.message_identity for m in batch[3]] == [m.message_identity for m in batch[0]]


def test_unparsable_file_is_a_message(batch: list) -> None:
    assert [m.check_name for m in batch[2]] == [PARSE_ERROR_CHECK]


def test_the_warm_server_reports_exactly_what_the_pmd_cli_reports(toolchain: Toolchain, batch: list) -> None:
    pmd = _pmd(toolchain)
    fresh = [pmd.lint_fresh(code) for code in (BRACES, CLEAN, BROKEN)]
    assert fresh == batch[:3]


def test_a_late_answer_is_a_lint_error_and_the_next_batch_gets_a_new_server(toolchain: Toolchain) -> None:
    pmd = _pmd(toolchain)
    try:
        assert pmd.lint_each([CLEAN]) == [[]]  # the server is up
        pmd.timeout_s = 0.001
        (outcome,) = pmd.lint_each([CLEAN])
        assert isinstance(outcome, LintError) and "timed out" in outcome.reason
        assert pmd._server is None  # killed, not left running
        pmd.timeout_s = 120.0
        assert [m.check_name for m in pmd.lint_each([BROKEN])[0]] == [PARSE_ERROR_CHECK]
    finally:
        pmd.close()


def test_a_dead_server_is_replaced(toolchain: Toolchain) -> None:
    pmd = _pmd(toolchain)
    try:
        first = pmd.lint_each([BRACES])
        pmd.server().proc.kill()
        pmd.server().proc.wait()
        assert pmd.lint_each([BRACES]) == first
    finally:
        pmd.close()


def _pmd(toolchain: Toolchain) -> Pmd:
    return Pmd(toolchain.path("java"), Path(toolchain.path("pmd")), load_profile().file("java"), file_name="Main.java")


def test_a_stack_overflow_fails_its_file_only_and_the_server_lives_on(toolchain: Toolchain) -> None:
    # Deep enough to overflow the server's -Xss8m whether the parser runs interpreted or compiled
    # (3000 levels did not always: compiled frames are smaller; a suite run once got alerts).
    deep = "public class Main {\n    static int deep() { return " + "(" * 20000 + "1" + ")" * 20000 + "; }\n}\n"
    pmd = _pmd(toolchain)
    try:
        assert pmd.lint_each([CLEAN]) == [[]]
        pid = pmd.server().proc.pid
        overflowed, clean, braces = pmd.lint_each([deep, CLEAN, BRACES])  # one batch, then each alone
        assert isinstance(overflowed, LintError) and "StackOverflowError" in overflowed.reason
        assert clean == [] and "ControlStatementBraces" in {m.check_name for m in braces}
        assert pmd.server().proc.pid == pid  # the JVM caught the Error: no restart
    finally:
        pmd.close()


def test_a_batch_past_its_cpu_budget_is_bounded_and_the_next_file_lints(toolchain: Toolchain) -> None:
    many = "public class Main {\n" + "".join(
        f"    static int m{i}(int x) {{ if (x > {i}) {{ return x * {i} + m{i}(x - 1); }} return {i}; }}\n"
        for i in range(30000)) + "}\n"
    pmd = _pmd(toolchain)
    try:
        assert pmd.lint_each([CLEAN]) == [[]]  # start-up and warm-up under the default budget
        pmd.cpu_s = 2.0
        (bounded,) = pmd.lint_each([many])
        assert isinstance(bounded, LintError) and "exceeded its CPU budget" in bounded.reason
        pmd.cpu_s = 30.0
        assert pmd.lint_each([CLEAN]) == [[]]
    finally:
        pmd.close()
