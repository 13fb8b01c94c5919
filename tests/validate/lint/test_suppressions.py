"""Suppressions are no fix: each handled form suppresses as written (so it needs neutralising)
and lints, neutralised, to exactly the alerts and positions of the program without it."""

from __future__ import annotations

from collections import Counter, defaultdict
from string import Template
from typing import NamedTuple

import pytest

from linteval_ray.languages.cpp.suppressions import lex_cpp
from linteval_ray.languages.java.suppressions import java_string_value, lex_java
from linteval_ray.languages.py3.suppressions import pylint_actions, python_comments
from linteval_ray.schema.record import Language, LintMessage
from linteval_ray.validate.lint import Linters
from linteval_ray.validate.lint.directives import Neutralized
from linteval_ray.validate.lint.suppressions import count_suppressions, find_suppressions, neutralize_suppressions


class Form(NamedTuple):
    """A suppression written into a template's slots. Without it, each slot holds only its
    line breaks, so the unsuppressed program has the same lines."""

    name: str
    slots: dict[str, str]
    count: int = 1


def program(template: Template, slots: dict[str, str]) -> str:
    return template.substitute(defaultdict(str, slots))


def without(form: Form) -> dict[str, str]:
    return {slot: "\n" * text.count("\n") for slot, text in form.slots.items()}


def alerts(messages: list[LintMessage]) -> Counter[tuple[str, int, int]]:
    return Counter((m.message_identity, m.line, m.column) for m in messages)


# clang-diagnostic-unused-variable, modernize-use-nullptr, readability-braces-around-statements:
# on in every profile.
CPP = Template("""#include <cstdio>
$top
auto main() -> int {
$before_unused
  int unused_var = 0;$unused
$before_null
  const char *ptr = 0;$null
  if (ptr == nullptr) std::puts("x");$braces
$end
  return 0;
}
""")
CPP_FORMS = [
    Form("NOLINT", {"null": "  // NOLINT"}),
    Form("NOLINT in a block comment", {"null": "  /* NOLINT */"}),
    Form("NOLINT(check)", {"null": "  // NOLINT(modernize-use-nullptr)"}),
    Form("NOLINT within prose", {"null": "  // see NOLINT, a false positive"}),
    Form("NOLINT glued to words", {"null": "  //xNOLINT_reviewed"}),
    Form("NOLINTNEXTLINE", {"before_null": "  // NOLINTNEXTLINE"}),
    Form("NOLINTNEXTLINE(check) in a block comment", {"before_null": "  /* NOLINTNEXTLINE(modernize-*) */"}),
    Form("NOLINTBEGIN / NOLINTEND", {"top": "// NOLINTBEGIN", "end": "// NOLINTEND"}, 2),
    Form("NOLINTBEGIN(checks) / NOLINTEND(checks)",
         {"top": "/* NOLINTBEGIN(modernize-*, readability-*) */",
          "end": "/* NOLINTEND(modernize-*, readability-*) */"}, 2),
    Form("pragma clang ignored", {"top": '#pragma clang diagnostic ignored "-Wunused-variable"'}),
    Form("pragma GCC ignored", {"top": '#pragma GCC diagnostic ignored "-Wall"'}),
    Form("pragma push / ignored / pop",
         {"top": '#pragma clang diagnostic push\n#pragma clang diagnostic ignored "-Weverything"',
          "end": "#pragma clang diagnostic pop"}),
    Form("pragma as digraph, with a comment and a continuation",
         {"top": '%:pragma /* why */ clang diagnostic \\\n  ignored "-Wunused-variable"'}),
    Form("_Pragma operator", {"before_unused": '  _Pragma("clang diagnostic ignored \\"-Wunused-variable\\"")'}),
    Form("_Pragma through a stringizing macro",
         {"top": '#define DO_PRAGMA(x) _Pragma(#x)\nDO_PRAGMA(GCC diagnostic ignored "-Wunused-variable")'}),
    Form("system-header linemarker", {"top": '# 1 "sol.cpp" 3'}),
    Form("NOLINT after a blanked pragma", {"top": '#pragma clang diagnostic ignored "-Wall"  // NOLINT'}, 2),
]
CPP_IGNORED = [
    Form("lower-case nolint", {"null": "  // nolint"}, 0),
    Form("capitalised Nolint", {"null": "  // Nolint"}, 0),
    Form("NOLINT followed by letters", {"null": "  // NOLINTPLEASE"}, 0),
    Form("diagnostic warning / push",
         {"top": '#pragma clang diagnostic push\n#pragma clang diagnostic warning "-Wunused"'}, 0),
    Form("#line to another file", {"top": '#line 3 "other.cpp"'}, 0),
]

# unused-import, invalid-name, missing-function-docstring. The def line is 81 characters: with a
# trailing pragma it passes pylint's 100 only because pylint leaves the pragma out of the count.
PY3 = Template('''"""Doc."""
$top
import os$imp
x = 1$x
$before_def
def function_with_a_long_name(argument_one, argument_two, argument_three, four):$f
$body
    return argument_one + argument_two + argument_three + four
''')
PY3_FORMS = [
    Form("disable", {"imp": "  # pylint: disable=unused-import"}),
    Form("no spaces", {"imp": "  #pylint:disable=unused-import"}),
    Form("message id with spaces around =", {"imp": "  # pylint: disable = W0611"}),
    Form("lower-case message id", {"imp": "  # pylint: disable=w0611"}),
    Form("after other text", {"imp": "  # noqa: F401 pylint: disable=unused-import"}),
    Form("disable-msg", {"imp": "  # pylint: disable-msg=unused-import"}),
    Form("reason after a semicolon", {"imp": "  # pylint: disable=unused-import; imported for its side effects"}),
    Form("two actions", {"imp": "  # pylint: disable=unused-import, disable-next=invalid-name"}, 2),
    Form("inert pragma before the effective one",
         {"imp": "  # pylint: enable=unused-import # pylint: disable=unused-import"}),
    Form("disable-next", {"before_def": "# pylint: disable-next=missing-function-docstring"}),
    Form("disable on a long line", {"f": "  # pylint: disable=missing-function-docstring"}),
    Form("block disable", {"top": "# pylint: disable=missing-function-docstring,invalid-name"}),
    Form("disable=all", {"top": "# pylint: disable=all"}),
    Form("disable=all after code", {"x": "  # pylint: disable=all"}),
    Form("skip-file", {"top": "# pylint: skip-file"}),
    Form("disable-all", {"body": "    # pylint: disable-all"}),
]
PY3_IGNORED = [
    Form("upper-case PYLINT", {"imp": "  # PYLINT: disable=unused-import"}, 0),
    Form("capitalised Pylint", {"imp": "  # Pylint: disable=unused-import"}, 0),
    Form("space before the colon", {"imp": "  # pylint : disable=unused-import"}, 0),
    Form("pylint glued to a word", {"imp": "  # apylint: disable=unused-import"}, 0),
    Form("noqa and type: ignore", {"imp": "  # noqa: F401", "x": "  # type: ignore"}, 0),
    Form("pragma cut off by a semicolon", {"imp": "  # reason; pylint disable=unused-import"}, 0),
]

# UnusedPrivateField, UnusedLocalVariable, ControlStatementBraces (PMD quickstart).
JAVA = Template("""package sol;

/** Doc. */
$cls
public final class Main {
    private int counter;$field

    private Main() { }

    /** Entry. */
$main
    public static void main(String[] args) {
        int local = 2;$local
        if (args.length == 1) System.out.println(args.length);$iff
    }
}
""")
JAVA_FORMS = [
    Form("NOPMD", {"iff": " // NOPMD"}),
    Form("NOPMD without a space, with a reason", {"iff": " //NOPMD - reviewed"}),
    Form("NOPMD within prose", {"local": " // see NOPMD"}),
    Form('"PMD" on the class', {"cls": '@SuppressWarnings("PMD")'}),
    Form('"PMD.Rule" on the method', {"main": '    @SuppressWarnings("PMD.ControlStatementBraces")'}),
    Form("PMD name beside a javac name", {"main": '    @SuppressWarnings({"PMD.UnusedLocalVariable", "unchecked"})'}),
    Form("two PMD names",
         {"main": '    @SuppressWarnings({"PMD.UnusedLocalVariable", "PMD.ControlStatementBraces"})'}, 2),
    Form('"all"', {"cls": '@SuppressWarnings("all")'}),
    Form('"unused"', {"cls": '@SuppressWarnings("unused")'}),
    Form("qualified annotation", {"cls": '@java.lang.SuppressWarnings("PMD")'}),
    Form("concatenated value", {"cls": '@SuppressWarnings("P" + "MD")'}),
    Form("unicode escape", {"cls": '@SuppressWarnings("\\u0050MD")'}),
    Form("only escapes, beside a javac name", {"cls": '@SuppressWarnings({"\\u0050\\u004D\\u0044", "unchecked"})'}),
    Form("value = {...}", {"main": '    @SuppressWarnings(value = {"PMD.UnusedLocalVariable"})'}),
    Form("text block", {"cls": '@SuppressWarnings("""\n    PMD""")'}),
]
JAVA_IGNORED = [
    Form("lower-case nopmd", {"iff": " // nopmd"}, 0),
    Form("NOPMD in a block comment", {"iff": " /* NOPMD */"}, 0),
    Form('"unchecked"', {"cls": '@SuppressWarnings("unchecked")'}, 0),
    Form('"pmd" in lower case', {"cls": '@SuppressWarnings("pmd")'}, 0),
    Form('"PMD" in a string, not an annotation',
         {"field": ' String note = "// NOPMD @SuppressWarnings(\\"PMD\\")";'}, 0),
]

CASES: dict[Language, tuple[Template, list[Form], list[Form]]] = {
    "cpp": (CPP, CPP_FORMS, CPP_IGNORED),
    "py3": (PY3, PY3_FORMS, PY3_IGNORED),
    "java": (JAVA, JAVA_FORMS, JAVA_IGNORED),
}
HANDLED = [pytest.param(lang, form, id=f"{lang}: {form.name}")
           for lang, (_, forms, _) in CASES.items() for form in forms]
IGNORED = [pytest.param(lang, form, id=f"{lang}: {form.name}")
           for lang, (_, _, forms) in CASES.items() for form in forms]


class Linted(NamedTuple):
    unsuppressed: list[LintMessage]
    as_written: list[LintMessage]
    neutralized: list[LintMessage]


@pytest.fixture(scope="module")
def linted(linters: Linters) -> dict[tuple[str, str], Linted]:
    """Every form of every language, linted in one batch per language."""
    results: dict[tuple[str, str], Linted] = {}
    for lang, (template, forms, ignored) in CASES.items():
        every = forms + ignored
        codes = [program(template, without(form)) for form in every]
        codes += [program(template, form.slots) for form in every]
        codes += [neutralize_suppressions(lang, program(template, form.slots)).code for form in forms]
        messages = linters.lint(lang, codes)
        neutral = dict(zip([form.name for form in forms], messages[2 * len(every):], strict=True))
        for index, form in enumerate(every):
            results[lang, form.name] = Linted(messages[index], messages[len(every) + index],
                                              neutral.get(form.name, messages[len(every) + index]))
    return results


@pytest.mark.parametrize(("lang", "form"), HANDLED)
def test_a_form_suppresses_as_written_and_neutralised_lints_as_if_absent(
        linted: dict[tuple[str, str], Linted], lang: Language, form: Form) -> None:
    result = linted[lang, form.name]
    assert result.unsuppressed, "the program must have alerts to suppress"
    # Hides an alert (usually: fewer alerts; `value = {...}` hides one and adds one about itself).
    hidden = alerts(result.unsuppressed) - alerts(result.as_written)
    assert hidden, "the form does not suppress: it needs no neutralising"
    assert alerts(result.neutralized) == alerts(result.unsuppressed)


@pytest.mark.parametrize(("lang", "form"), HANDLED)
def test_a_form_is_counted_and_keeps_lines_and_columns(lang: Language, form: Form) -> None:
    template = CASES[lang][0]
    code = program(template, form.slots)
    neutral = neutralize_suppressions(lang, code)
    assert neutral.count == form.count == count_suppressions(lang, code)
    assert neutral.code != code
    assert neutral.code.count("\n") == code.count("\n")
    if lang == "cpp":  # clang-tidy columns are bytes
        assert len(neutral.code.encode()) == len(code.encode())
    else:
        assert len(neutral.code) == len(code)
    assert neutralize_suppressions(lang, neutral.code) == Neutralized(code=neutral.code, count=0)


@pytest.mark.parametrize(("lang", "form"), IGNORED)
def test_a_form_the_tool_ignores_is_left_alone(linted: dict[tuple[str, str], Linted], lang: Language,
                                               form: Form) -> None:
    result = linted[lang, form.name]
    assert alerts(result.as_written) == alerts(result.unsuppressed)
    code = program(CASES[lang][0], form.slots)
    neutral = neutralize_suppressions(lang, code)
    assert neutral.code is code and neutral.count == 0


@pytest.mark.parametrize("lang", list(CASES))
def test_code_without_suppressions_comes_back_unchanged(lang: Language) -> None:
    code = program(CASES[lang][0], {})
    neutral = neutralize_suppressions(lang, code)
    assert neutral.code is code
    assert neutral.count == 0 and find_suppressions(lang, code) == []


def test_string_literals_holding_markers_are_untouched_and_not_counted() -> None:
    samples: dict[Language, str] = {
        "cpp": 'int main() { printf("// NOLINT"); puts("/* NOLINTBEGIN */ #pragma clang diagnostic ignored"); }\n',
        "py3": 's = "# pylint: disable=all"\nt = """\n# pylint: skip-file\n"""\nu = f"{s!r} # pylint: disable=all"\n',
        "java": 'class A { String s = "// NOPMD"; String t = """\n    // NOPMD @SuppressWarnings("PMD")\n    """; }\n',
    }
    for lang, code in samples.items():
        neutral = neutralize_suppressions(lang, code)
        assert (neutral.code, neutral.count) == (code, 0), lang


def test_fallthrough_is_not_honoured_by_pmd_so_it_is_left_alone(linters: Linters) -> None:
    code = Template("""package sol;

/** Doc. */
$ann
public final class Main {
    private Main() { }

    /** Entry. */
    public static void main(String[] args) {
        switch (args.length) {
            case 1:
                System.out.println(1);
            case 2:
                System.out.println(2);
                break;
            default:
                break;
        }
    }
}
""")
    plain, annotated = program(code, {}), program(code, {"ann": '@SuppressWarnings("fallthrough")'})
    before, after = linters.lint("java", [plain, annotated])
    assert "ImplicitSwitchFallThrough" in {m.check_name for m in before}
    assert alerts(after) == alerts(before)
    assert count_suppressions("java", annotated) == 0


def test_known_limitation_clang_tidy_also_obeys_nolint_in_string_literals(linters: Linters) -> None:
    """clang-tidy searches the raw text, comments or not. Strings are left alone on purpose:
    if this starts failing, clang-tidy changed and the docstring's "Not handled" is stale."""
    code = 'auto main() -> int {\n  const char *ptr = 0; (void)"NOLINT";\n  return ptr == nullptr ? 1 : 0;\n}\n'
    (messages,) = linters.lint("cpp", [code])
    assert "modernize-use-nullptr" not in {m.check_name for m in messages}
    assert neutralize_suppressions("cpp", code).code == code


# ------------------------------------------------------------------------------------------
# Pure tests: the lexers and parsers, no linter.
# ------------------------------------------------------------------------------------------

def kinds(code: str, *, java: bool = False) -> list[tuple[str, str]]:
    tokens = lex_java(code) if java else lex_cpp(code)
    return [(t.kind, code[t.start:t.end]) for t in tokens if t.kind in ("comment", "string")]


def test_cpp_raw_strings_hide_comment_markers_until_their_own_delimiter() -> None:
    code = 'auto r = R"x(// NOLINT )" still inside)x"; auto q = u8R"(/* NOLINT */)"; // NOLINT\n'
    assert kinds(code) == [("string", 'R"x(// NOLINT )" still inside)x"'), ("string", 'u8R"(/* NOLINT */)"'),
                           ("comment", "// NOLINT")]
    neutral = neutralize_suppressions("cpp", code)
    assert neutral.count == 1 and neutral.code == code.replace("; // NOLINT", "; // NOLXNT")


def test_cpp_escaped_quotes_and_char_literals_do_not_end_or_start_strings() -> None:
    code = 'char q = \'"\'; char e = \'\\\'\'; const char *s = "a\\"// NOLINT"; // NOLINT\n'
    assert kinds(code) == [("string", "'\"'"), ("string", "'\\''"), ("string", '"a\\"// NOLINT"'),
                           ("comment", "// NOLINT")]
    assert count_suppressions("cpp", code) == 1


def test_cpp_block_comment_spanning_lines_and_continued_line_comment() -> None:
    code = 'int a; /* one "\n NOLINTBEGIN\n */ int b;\n// note \\\n NOLINTEND "\nint c;\n'
    assert kinds(code) == [("comment", '/* one "\n NOLINTBEGIN\n */'), ("comment", '// note \\\n NOLINTEND "')]
    neutral = neutralize_suppressions("cpp", code)
    assert [s.form for s in find_suppressions("cpp", code)] == ["NOLINTBEGIN", "NOLINTEND"]
    assert "NOLINT" not in neutral.code and neutral.code.count("\n") == code.count("\n")


def test_cpp_digit_separators_are_not_char_literals() -> None:
    code = "auto n = 1'000'000; // NOLINT don't\n"
    assert kinds(code) == [("comment", "// NOLINT don't")]
    assert count_suppressions("cpp", code) == 1


def test_an_unterminated_quote_does_not_hide_the_comments_after_it() -> None:
    code = "#if 0\nit's // NOLINTBEGIN\n#endif\nint x; // NOLINTEND\n"
    assert count_suppressions("cpp", code) == 2


def test_cpp_nolint_spellings_follow_clang_tidy() -> None:
    code = "// NOLINT NOLINTNEXTLINE(a) NOLINTBEGIN(b,c) NOLINTEND NOLINT_x xNOLINT\n// nolint NOLINTx NOLINTBEGINS\n"
    assert [s.form for s in find_suppressions("cpp", code)] == [
        "NOLINT", "NOLINTNEXTLINE", "NOLINTBEGIN", "NOLINTEND", "NOLINT", "NOLINT"]
    assert neutralize_suppressions("cpp", code).code.count("NOLXNT") == 6


def test_cpp_directives_that_are_not_suppressions_are_left_alone() -> None:
    code = ('#pragma clang diagnostic push\n#pragma clang diagnostic warning "-Wall"\n#pragma GCC system_header\n'
            '#pragma once\n# 5 "a.h" 1\n#line 7 "b.cpp"\n#define ignored 1\nint diagnostic = ignored;\n'
            '#pragma clang diagnostic pop\n')
    assert neutralize_suppressions("cpp", code) == Neutralized(code=code, count=0)


def test_cpp_blanking_keeps_byte_columns_and_macro_continuations() -> None:
    code = ('#define QUIET _Pragma( \\\n  "clang diagnostic ignored \\"-Wunused\\"") int quiet_é = 0;\n'
            'DO(clang diagnostic ignored "-Wé" "-Wx") int *p = 0;\n')
    neutral = neutralize_suppressions("cpp", code)
    assert neutral.count == 2
    first, second, third, _ = neutral.code.split("\n")
    assert first == "#define QUIET          \\"  # the blanked operator keeps its line continuation
    assert second.strip() == "int quiet_é = 0;" and second.endswith(") int quiet_é = 0;"[1:])
    assert third.startswith("DO(clang diagnostic push ") and third.endswith(") int *p = 0;")
    assert third.encode().index(b") int") == code.split("\n")[2].encode().index(b") int")  # é: 2 bytes, 2 spaces


def test_java_lexer_text_blocks_and_char_literals() -> None:
    code = 'char c = \'"\'; String t = """\n    a \\""" // NOPMD\n    """; String s = "// NOPMD"; // NOPMD\n'
    assert kinds(code, java=True) == [("string", "'\"'"), ("string", '"""\n    a \\""" // NOPMD\n    """'),
                                      ("string", '"// NOPMD"'), ("comment", "// NOPMD")]
    neutral = neutralize_suppressions("java", code)
    assert neutral.count == 1 and neutral.code.endswith('"// NOPMD"; // NOPXD\n')


def test_java_string_values_fold_escapes_and_text_blocks() -> None:
    assert java_string_value('"\\u0050M\\104.\\tX"') == "PMD.\tX"
    assert java_string_value('"""\n      PMD.A\n    """') == "  PMD.A\n"
    assert java_string_value('"""\n    PMD"""') == "PMD"


def test_java_annotation_shapes_and_their_counts() -> None:
    code = ('@SuppressWarnings(value = {"PMD.A", "unchecked", ("P" + "MD")})\n'
            '@SuppressWarnings("rawtypes") @Deprecated @interface Marker { }\n'
            'class A { void f(@SuppressWarnings("unused") int x) { } @SuppressWarnings(UNKNOWN) int y; }\n')
    found = find_suppressions("java", code)
    assert [(s.form, s.line) for s in found] == [('@SuppressWarnings("PMD.A")', 1), ('@SuppressWarnings("PMD")', 1),
                                                ('@SuppressWarnings("unused")', 3)]
    neutral = neutralize_suppressions("java", code).code
    # beside a javac name: disguised in place; alone: the whole annotation blanked
    assert neutral.splitlines()[0] == '@SuppressWarnings(value = {"pMD.A", "unchecked", ("p" + "MD")})'
    assert "void f(" + " " * len('@SuppressWarnings("unused")') + " int x)" in neutral
    assert '@SuppressWarnings("rawtypes")' in neutral and "@SuppressWarnings(UNKNOWN)" in neutral


def test_java_values_without_a_letter_outside_escapes_are_blanked() -> None:
    code = '@SuppressWarnings({"\\u0050\\u004D\\u0044", "unchecked"}) class A { }\n'
    neutral = neutralize_suppressions("java", code)
    assert neutral.count == 1
    assert neutral.code == '@SuppressWarnings({"' + " " * 18 + '", "unchecked"}) class A { }\n'


PRAGMAS = ["disable=unused-import,invalid-name", "disable=C0111 disable-next=W0611 skip-file",
           "enable=all, disable=W0611", "disable", "disable=x", "skip-file=all", "disable=W0611 bogus=1",
           "disable=W0611 enable", "disable-all", "disable-msg=R0201 enable-msg=R0201", "foo disable=W0611",
           "disable = all", "disable=W0611=W0612", "  ", "disable=W0611, , invalid-name"]


@pytest.mark.parametrize("pragma", PRAGMAS)
def test_pylint_actions_agree_with_pylints_own_parser(pragma: str) -> None:
    parser = pytest.importorskip("pylint.utils.pragma_parser")
    applied: list[str] = []
    try:
        for representer in parser.parse_pragma(pragma):  # pylint applies each as it comes
            applied.append(representer.action)
    except parser.PragmaParserError:
        pass  # and keeps what it applied before the error
    assert pylint_actions(pragma) == applied


def test_pylint_actions_examples() -> None:
    assert pylint_actions("disable=C0111 disable-next=W0611 skip-file") == ["disable", "disable-next", "skip-file"]
    assert pylint_actions("disable") == []  # no messages: pylint rejects it
    assert pylint_actions("disable=x") == []  # one letter is no message name


def test_pylint_counts_only_the_effective_pragma_of_a_comment() -> None:
    code = ("x = 1  # pylint: disable=invalid-name # pylint: enable=unused-import\n"
            "y = 2  # pylint: disable=unused-import # pylint: disable=invalid-name\n")
    found = find_suppressions("py3", code)
    assert [(s.form, s.line) for s in found] == [("pylint: disable", 2)]
    first, second = neutralize_suppressions("py3", code).code.splitlines()
    assert first == code.splitlines()[0]  # its last pragma enables: nothing suppresses here
    pragma = "# pylint: disable=invalid-name"
    assert second == "y = 2  # pylXnt: disable=unused-import # type: ignore[" + " " * (len(pragma) - 16) + "]"


def test_python_comments_come_from_tokenize_or_a_scan_of_broken_code() -> None:
    good = 's = "# no"  # yes\nt = """\n# no\n"""\n'
    assert python_comments(good) == [(12, "# yes")]
    broken = "x = (1,\n  # pylint: disable=all\n'# no'  # pylint: skip-file\n"  # an unclosed bracket
    assert [text for _, text in python_comments(broken)] == ["# pylint: disable=all", "# pylint: skip-file"]
    assert count_suppressions("py3", broken) == 2
    dedent = "if x:\n        a = 1\n    b = 2  # pylint: disable=all\n"  # tokenize: IndentationError
    assert count_suppressions("py3", dedent) == 1


def test_python_offsets_survive_carriage_returns() -> None:
    code = "a = 1\r\nb = 2  # pylint: disable=invalid-name\rc = 3\n"
    neutral = neutralize_suppressions("py3", code)
    assert neutral.count == 1 and neutral.code.startswith("a = 1\r\nb = 2  # type: ignore[")


def test_unknown_language_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown language 'rust'"):
        neutralize_suppressions("rust", "// NOLINT")  # type: ignore[arg-type]
