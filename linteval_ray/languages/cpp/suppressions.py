"""clang-tidy's suppressions in C++ code, and how each is disarmed (``validate/lint/suppressions.py``).

C++ (clang-tidy)
    ``NOLINT``, ``NOLINTNEXTLINE``, ``NOLINTBEGIN``, ``NOLINTEND``, each with or without
    ``(check,...)``, in ``//`` or ``/* */`` comments. clang-tidy finds them by plain text
    search: anywhere in the comment (``// see NOLINT``, ``//xNOLINT``), case-sensitive
    (``nolint`` and ``Nolint`` do nothing), and a letter right after the word breaks it
    (``NOLINTx`` does nothing; ``NOLINT_x`` is a NOLINT). Neutralised as ``NOLXNT...``.
    ``#pragma clang diagnostic ignored ...`` and ``#pragma GCC diagnostic ignored ...``
    (also written ``%:pragma``, with comments or line continuations inside) hide
    clang-diagnostic-* alerts. Turning ``ignored`` into ``warning`` is not neutral: it
    switches on groups that -Wall -Wextra leave off (``-Wshadow``, ``-Weverything``). So
    the directive is blanked with spaces, which is the program without it.
    ``_Pragma("clang|GCC diagnostic ignored ...")`` is blanked the same way.
    ``clang|GCC diagnostic ignored "..."`` as plain tokens (the ``DO_PRAGMA(x) _Pragma(#x)``
    idiom) becomes ``diagnostic push``, a silent no-op.
    A GNU linemarker with the system-header flag (``# 1 "x.h" 3``) hides *every* alert
    after it, clang-tidy checks included, so it is blanked too.
    Not suppressions (left alone): ``diagnostic push/pop/warning/error``,
    ``#pragma GCC system_header`` and ``#line`` (both ignored in the main file), and
    ``#pragma CLANG ...`` / ``#pragma gcc ...`` (unknown pragmas: they raise an alert
    themselves).

Counting: one per directive. One NOLINT-family word (a NOLINTBEGIN/NOLINTEND pair is two), one
suppressing pragma directive / ``_Pragma`` / linemarker.

Not handled (clang-tidy honours them; callers should know): ``NOLINT`` in string literals and
identifiers (``puts("NOLINT")``, ``int NOLINT_x;``), because its search ignores comments, except
that a revision adding ``NOLINT`` where the original has none gets every one disarmed
(``RULES.raw_word``). Preprocessor conditionals are not evaluated: a directive inside ``#if 0``
is neutralised and counted.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from linteval_ray.validate.lint.directives import (
    NEWLINE,
    Edit,
    Suppression,
    SuppressionRules,
    Token,
    blank,
    lex,
    line_of,
    mark,
    token_text,
)

CPP_LEXEME = re.compile(
    rf"""(?P<newline>{NEWLINE})
    |(?P<skip>[ \t\f\v]+|\\[ \t]*(?:{NEWLINE}))
    |(?P<comment>//(?:\\[ \t]*(?:{NEWLINE})|[^\r\n])*|/\*[\s\S]*?(?:\*/|\Z))
    |(?P<string>(?:u8|u|U|L)?R"(?P<delim>[^ ()\\\t\v\f\r\n]{{0,16}})\([\s\S]*?\)(?P=delim)"
        |(?:u8|u|U|L)?"(?:\\(?:\r\n|[\s\S])|[^"\\\r\n])*"
        |(?:u8|u|U|L)?'(?:\\(?:\r\n|[\s\S])|[^'\\\r\n])*')
    |(?P<word>\.?\d(?:[eEpP][+-]|'[0-9A-Za-z_]|[0-9A-Za-z_.])*|[A-Za-z_$\x80-\U0010ffff][0-9A-Za-z_$\x80-\U0010ffff]*)
    |(?P<punct>%:|[\s\S])""",
    re.VERBOSE,
)


def lex_cpp(code: str) -> list[Token]:
    """C++ lexemes of ``code``; whitespace and continuations dropped: raw strings ``R"x(...)x"``
    with prefixes, escapes, char literals, digit separators (``1'000``), ``//`` comments
    continued by a trailing backslash, ``%:``."""
    return lex(code, CPP_LEXEME)



_NOLINT = re.compile(r"NOLINT([A-Za-z]*)")  # clang-tidy reads the letters right after NOLINT
_NOLINT_KINDS = ("", "NEXTLINE", "BEGIN", "END")
_DIAGNOSTIC_NAMESPACES = ("clang", "GCC")
_PRAGMA_IGNORED = re.compile(r"\s*(?:clang|GCC)\s+diagnostic\s+ignored\b")


def cpp_suppressions(code: str) -> list[Suppression]:
    """Every clang-tidy suppression of ``code``."""
    tokens = lex_cpp(code)
    found = list(_nolint_comments(code, tokens))
    for line in _logical_lines(tokens):
        significant = [token for token in line if token.kind != "comment"]
        directive = _suppressing_directive(code, significant)
        if directive is not None:
            found.append(directive)
        else:
            found += _pragma_operators(code, significant)
            found += _stringized_pragmas(code, significant)
    return found


def _nolint_comments(code: str, tokens: list[Token]) -> Iterator[Suppression]:
    for token in tokens:
        if token.kind != "comment":
            continue
        for match in _NOLINT.finditer(code, token.start, token.end):
            if match.group(1) in _NOLINT_KINDS:
                edit = mark(match.start() + 3, "I", "X")  # NOLINT -> NOLXNT
                yield Suppression(match.group(0), line_of(code, match.start()), (edit,))


def _logical_lines(tokens: list[Token]) -> Iterator[list[Token]]:
    """Tokens per logical source line (continuations joined, comments kept)."""
    line: list[Token] = []
    for token in tokens:
        if token.kind == "newline":
            yield line
            line = []
        else:
            line.append(token)
    yield line


def _suppressing_directive(code: str, significant: list[Token]) -> Suppression | None:
    """A ``#pragma clang|GCC diagnostic ignored`` or system-header linemarker line, blanked."""
    if not significant or token_text(code, significant[0]) not in ("#", "%:"):
        return None
    words = [token_text(code, token) for token in significant[1:]]
    if words[:1] == ["pragma"] and words[2:4] == ["diagnostic", "ignored"] and words[1] in _DIAGNOSTIC_NAMESPACES:
        form = f"#pragma {words[1]} diagnostic ignored"
    elif len(significant) >= 3 and words[0].isdigit() and significant[2].kind == "string" and "3" in words[2:]:
        form = "# linemarker with system-header flag 3"
    else:
        return None
    start, end = significant[0].start, significant[-1].end
    return Suppression(form, line_of(code, start), (Edit(start, end, blank(code[start:end], utf8=True)),))


def _pragma_operators(code: str, significant: list[Token]) -> Iterator[Suppression]:
    """``_Pragma("clang|GCC diagnostic ignored ...")``, blanked whole."""
    for index, token in enumerate(significant[:-3]):
        operand = significant[index + 2]
        shape = [token_text(code, t) for t in (token, significant[index + 1], significant[index + 3])]
        if shape == ["_Pragma", "(", ")"] and operand.kind == "string" \
                and _PRAGMA_IGNORED.match(_cpp_string_value(token_text(code, operand))):
            start, end = token.start, significant[index + 3].end
            yield Suppression("_Pragma diagnostic ignored", line_of(code, start),
                              (Edit(start, end, blank(code[start:end], utf8=True)),))


def _stringized_pragmas(code: str, significant: list[Token]) -> Iterator[Suppression]:
    """``clang|GCC diagnostic ignored "-W..."`` as tokens (a macro argument that becomes a
    pragma): ``ignored`` and its strings become ``push`` and spaces."""
    words = [token_text(code, token) for token in significant]
    for index in range(len(words) - 2):
        if words[index] in _DIAGNOSTIC_NAMESPACES and words[index + 1:index + 3] == ["diagnostic", "ignored"]:
            last = index + 2
            while last + 1 < len(significant) and significant[last + 1].kind == "string":
                last += 1
            start, end = significant[index + 2].start, significant[last].end
            text = "push" + blank(code[start + 4:end], utf8=True)
            yield Suppression("diagnostic ignored (macro argument)", line_of(code, start), (Edit(start, end, text),))


def _cpp_string_value(literal: str) -> str:
    """The characters a C++ string literal stands for (enough for pragma text)."""
    body = re.sub(r"^(?:u8|u|U|L)", "", literal)
    if body.startswith("R"):
        delimiter = body[2:body.index("(")]
        return body[len(delimiter) + 3:-len(delimiter) - 2]
    return re.sub(r"\\(.)", r"\1", body[1:-1])


RULES = SuppressionRules(find=cpp_suppressions, raw_word=("NOLINT", "NOLXNT"))
