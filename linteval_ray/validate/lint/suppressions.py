"""Inline lint suppressions made inert, so a revision is linted as if it had none.

A revision that only adds ``// NOLINT`` or ``# pylint: disable=all`` fixes nothing. Scoring
lints ``neutralize_suppressions(language, code).code`` instead of the code as written. The
program is still compiled and judged as written. The neutralised text has the same lines,
and every character outside a suppression stays where it was (C++: the same UTF-8 byte
columns, which clang-tidy reports; Python and Java: the same character columns). It parses
exactly as before, so every other alert keeps its line, column and message.

Only comments, preprocessor / pragma directives and ``@SuppressWarnings`` values are touched.
Ordinary string literals and code are not (``printf("// NOLINT")`` is neither changed nor
counted), and neither are the forms the tools honour outside comments (see *Not handled*).

Every behaviour below was checked against the pinned tools (clang-tidy 23.1.4 wheel,
pylint 4.1.4, PMD 7.28.0). tests/validate/lint/test_suppressions.py re-checks each handled
form: as written it lints to fewer alerts, neutralised to exactly the alerts and positions
of the program without it.

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

Python (pylint)
    pylint reads pragmas from COMMENT tokens only (tokenize; a character scan stands in
    when tokenize fails, where pylint reports just the syntax error anyway). Its rule:
    ``pylint:`` after ``#`` anywhere in the comment (``# noqa pylint: disable=x``,
    ``#pylint:disable=x``, ``# pylint: disable = x``), lower case only (``# PYLINT:``,
    ``# Pylint:`` and ``# pylint: DISABLE=`` do nothing), and ``apylint:`` does nothing
    either. Of several ``# pylint:`` in one comment only the last counts, and only up to
    its first ``;`` or ``#``. Suppressing actions: ``disable``, ``disable-next``,
    ``disable-msg`` (deprecated), ``disable-all`` (deprecated) and ``skip-file``, with
    message names or ids (``W0611`` or ``w0611``) or ``all``. ``enable`` is not one.
    The effective pragma is overwritten in place by ``# type: ignore[<spaces>]`` of the
    same length. pylint leaves both texts out of the line-too-long count; a plain
    ``pylXnt:`` would add a line-too-long alert on long lines. Earlier ``pylint:`` in the
    same comment, which would then become effective, are broken as ``pylXnt:``.
    ``# noqa`` and ``# type: ignore`` are not pylint suppressions.

Java (PMD)
    ``NOPMD`` anywhere in a ``//`` comment (``// NOPMD``, ``//NOPMD - why``,
    ``// see NOPMD``), case-sensitive. It suppresses violations on the comment's line;
    ``/* NOPMD */`` and ``/** NOPMD */`` do nothing. Neutralised as ``NOPXD``.
    ``@SuppressWarnings`` (also ``@java.lang.SuppressWarnings``, ``value =``, ``{...}``
    arrays) whose constant string value is exactly ``"PMD"``, ``"PMD.<anything>"``,
    ``"all"``, ``"unused"`` (the Unused* rules and SingularField) or ``"serial"`` (per
    PMD's source; the rules it covers are off in quickstart). The value may be folded
    from ``"P" + "MD"``, unicode escapes ``"\\u0050MD"`` or a text block. If every value of
    the annotation is one of these, the whole annotation is blanked. Left in place, PMD
    would report how it is written (UnnecessaryFullyQualifiedName for ``java.lang.``,
    UnnecessaryAnnotationValueElement for ``value =``), and the program without it has
    no such alert. If the annotation also names javac warnings, it stays, and each honoured
    value is disguised in place. Matching is exact and case-sensitive, so swapping the case
    of the value's first letter is enough (``"pMD.X"``, ``"All"``). A value with no letter
    outside escapes is blanked. ``"unchecked"``, ``"rawtypes"`` etc. are left alone, and so is
    ``"fallthrough"``: PMD's source names it, but PMD 7.28 does not honour it for
    ImplicitSwitchFallThrough when the rule comes from a ruleset reference.

Counting (``Neutralized.count``): one per directive. One NOLINT-family word (a
NOLINTBEGIN/NOLINTEND pair is two), one suppressing pragma directive / ``_Pragma`` /
linemarker, one suppressing pylint action pylint applies (``disable=a,b`` is one,
``disable=a, disable-next=b`` is two, an inert pragma before the effective one is none),
one ``//`` comment holding NOPMD, one honoured ``@SuppressWarnings`` value
(``{"PMD.A", "PMD.B", "unchecked"}`` is two).

Not handled (the tools honour these, the brief keeps them untouched; callers should know):
clang-tidy also obeys ``NOLINT`` in string literals and identifiers
(``puts("NOLINT")``, ``int NOLINT_x;``), because its search ignores comments. pylint honours
a ``# pylint: disable=line-too-long`` written inside a string on a long line that has no
comment, for line-too-long only. Java suppressions whose value is a named constant
(``@SuppressWarnings(NAMES)``) and Java unicode escapes outside string literals are not
resolved. Preprocessor conditionals are not evaluated: a directive inside ``#if 0`` is
neutralised and counted.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections import Counter
from collections.abc import Callable, Iterator
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict

from linteval_ray.schema.record import Language


class Neutralized(BaseModel):
    """``code`` with every inline suppression inert, and how many directives were found."""

    model_config = ConfigDict(frozen=True)

    code: str
    count: int


class Edit(NamedTuple):
    """Replace ``code[start:end]`` by ``text`` (same lines; same columns after it)."""

    start: int
    end: int
    text: str


class Suppression(NamedTuple):
    """One suppression directive: its form, its 1-based line, and the edits that disarm it."""

    form: str
    line: int
    edits: tuple[Edit, ...]


def neutralize_suppressions(language: Language, code: str) -> Neutralized:
    """``code`` as its linter would see it without the suppressions it holds.

    Code without a suppression comes back as the very same string, count 0."""
    found = find_suppressions(language, code)
    edits = [edit for suppression in found for edit in suppression.edits]
    return Neutralized(code=apply_edits(code, edits) if edits else code, count=len(found))


def neutralize_added_suppressions(language: Language, original: str, revision: str) -> Neutralized:
    """``revision`` as scoring lints it: the suppressions it ADDS to ``original`` made inert.

    Suppressions already in the original are the dataset's business (the original is linted as
    written), so a revision that keeps one keeps its effect: directives are matched by form and
    text, as a multiset. ``count`` is the number of directives added. For C++ a ``NOLINT`` outside
    any comment also silences clang-tidy (it searches the raw text): when the original has no
    NOLINT at all, every remaining one in the revision is disarmed too (the linted copy only)."""
    kept = Counter(_signature(original, s) for s in find_suppressions(language, original))
    edits: list[Edit] = []
    added = 0
    for suppression in find_suppressions(language, revision):
        signature = _signature(revision, suppression)
        if kept[signature] > 0:
            kept[signature] -= 1
            continue
        added += 1
        edits += suppression.edits
    code = apply_edits(revision, edits) if edits else revision
    if language == "cpp" and "NOLINT" not in original and "NOLINT" in code:
        added += code.count("NOLINT")
        code = code.replace("NOLINT", "NOLXNT")
    return Neutralized(code=code, count=added)


def _signature(code: str, suppression: Suppression) -> tuple[str, tuple[str, ...]]:
    return suppression.form, tuple(code[edit.start:edit.end].strip() for edit in suppression.edits)


def count_suppressions(language: Language, code: str) -> int:
    """How many suppression directives ``code`` holds (see the module docstring)."""
    return len(find_suppressions(language, code))


def find_suppressions(language: Language, code: str) -> list[Suppression]:
    """Every suppression directive in ``code``, in source order."""
    try:
        finder = _FINDERS[language]
    except KeyError:
        raise ValueError(f"no suppression rules for language {language!r}") from None
    return sorted(finder(code), key=lambda suppression: suppression.line)


def apply_edits(code: str, edits: list[Edit]) -> str:
    """``code`` with ``edits`` applied. An edit inside an earlier, wider one is dropped
    (a NOLINT comment inside a blanked pragma)."""
    parts: list[str] = []
    position = 0
    for edit in sorted(edits, key=lambda e: (e.start, -e.end)):
        if edit.start < position:
            continue
        parts += [code[position:edit.start], edit.text]
        position = edit.end
    parts.append(code[position:])
    return "".join(parts)


def blank(text: str, *, utf8: bool) -> str:
    """``text`` as spaces, keeping line breaks and line continuations (backslash-newline).

    With ``utf8`` each character becomes as many spaces as its UTF-8 bytes, so byte
    columns after it stay (clang-tidy reports byte columns)."""
    continuations = {match.start() for match in _CONTINUATION.finditer(text)}
    return "".join(char if char in "\r\n" or index in continuations
                   else " " * (len(char.encode("utf-8", "surrogatepass")) if utf8 else 1)
                   for index, char in enumerate(text))


_CONTINUATION = re.compile(r"\\(?=[ \t]*[\r\n])")


def _line_of(code: str, offset: int) -> int:
    return code.count("\n", 0, offset) + 1


def _mark(start: int, old: str, new: str) -> Edit:
    """Overwrite the ``old`` text found at ``start`` by ``new`` (same length)."""
    assert len(old) == len(new)
    return Edit(start, start + len(old), new)


# ---------------------------------------------------------------------------------------
# The C / C++ / Java lexer: enough to tell comments and literals from code.
# ---------------------------------------------------------------------------------------

class Token(NamedTuple):
    """One lexeme: kind is ``newline``, ``comment``, ``string``, ``word`` or ``punct``."""

    kind: str
    start: int
    end: int


_NEWLINE = r"\r\n|\r|\n"
_CPP_LEXEME = re.compile(
    rf"""(?P<newline>{_NEWLINE})
    |(?P<skip>[ \t\f\v]+|\\[ \t]*(?:{_NEWLINE}))
    |(?P<comment>//(?:\\[ \t]*(?:{_NEWLINE})|[^\r\n])*|/\*[\s\S]*?(?:\*/|\Z))
    |(?P<string>(?:u8|u|U|L)?R"(?P<delim>[^ ()\\\t\v\f\r\n]{{0,16}})\([\s\S]*?\)(?P=delim)"
        |(?:u8|u|U|L)?"(?:\\(?:\r\n|[\s\S])|[^"\\\r\n])*"
        |(?:u8|u|U|L)?'(?:\\(?:\r\n|[\s\S])|[^'\\\r\n])*')
    |(?P<word>\.?\d(?:[eEpP][+-]|'[0-9A-Za-z_]|[0-9A-Za-z_.])*|[A-Za-z_$\x80-\U0010ffff][0-9A-Za-z_$\x80-\U0010ffff]*)
    |(?P<punct>%:|[\s\S])""",
    re.VERBOSE,
)
_JAVA_LEXEME = re.compile(
    rf"""(?P<newline>{_NEWLINE})
    |(?P<skip>[ \t\f]+)
    |(?P<comment>//[^\r\n]*|/\*[\s\S]*?(?:\*/|\Z))
    |(?P<string>\"\"\"[ \t\f]*(?:{_NEWLINE})(?:\\[\s\S]|[^\\])*?(?:\"\"\"|\Z)
        |"(?:\\[\s\S]|[^"\\\r\n])*"
        |'(?:\\[\s\S]|[^'\\\r\n])*')
    |(?P<word>[0-9A-Za-z_$\x80-\U0010ffff]+)
    |(?P<punct>[\s\S])""",
    re.VERBOSE,
)


def lex_c_family(code: str, *, java: bool = False) -> list[Token]:
    """C++ (or, with ``java``, Java) lexemes of ``code``; whitespace and continuations dropped.

    C++: raw strings ``R"x(...)x"`` with prefixes, escapes, char literals, digit separators
    (``1'000``), ``//`` comments continued by a trailing backslash, ``%:``. Java: text blocks.
    A literal left open at the end of its line is a lone ``punct`` (the rest of the line is
    lexed on), so one stray quote cannot hide the comments after it."""
    lexeme = _JAVA_LEXEME if java else _CPP_LEXEME
    tokens: list[Token] = []
    position = 0
    while position < len(code):
        match = lexeme.match(code, position)
        assert match is not None and match.lastgroup is not None  # the punct branch takes any char
        if match.lastgroup != "skip":
            tokens.append(Token(match.lastgroup, match.start(), match.end()))
        position = match.end()
    return tokens


def _text(code: str, token: Token) -> str:
    return code[token.start:token.end]


# ---------------------------------------------------------------------------------------
# C++ / clang-tidy
# ---------------------------------------------------------------------------------------

_NOLINT = re.compile(r"NOLINT([A-Za-z]*)")  # clang-tidy reads the letters right after NOLINT
_NOLINT_KINDS = ("", "NEXTLINE", "BEGIN", "END")
_DIAGNOSTIC_NAMESPACES = ("clang", "GCC")
_PRAGMA_IGNORED = re.compile(r"\s*(?:clang|GCC)\s+diagnostic\s+ignored\b")


def _cpp_suppressions(code: str) -> list[Suppression]:
    tokens = lex_c_family(code)
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
                edit = _mark(match.start() + 3, "I", "X")  # NOLINT -> NOLXNT
                yield Suppression(match.group(0), _line_of(code, match.start()), (edit,))


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
    if not significant or _text(code, significant[0]) not in ("#", "%:"):
        return None
    words = [_text(code, token) for token in significant[1:]]
    if words[:1] == ["pragma"] and words[2:4] == ["diagnostic", "ignored"] and words[1] in _DIAGNOSTIC_NAMESPACES:
        form = f"#pragma {words[1]} diagnostic ignored"
    elif len(significant) >= 3 and words[0].isdigit() and significant[2].kind == "string" and "3" in words[2:]:
        form = "# linemarker with system-header flag 3"
    else:
        return None
    start, end = significant[0].start, significant[-1].end
    return Suppression(form, _line_of(code, start), (Edit(start, end, blank(code[start:end], utf8=True)),))


def _pragma_operators(code: str, significant: list[Token]) -> Iterator[Suppression]:
    """``_Pragma("clang|GCC diagnostic ignored ...")``, blanked whole."""
    for index, token in enumerate(significant[:-3]):
        operand = significant[index + 2]
        shape = [_text(code, t) for t in (token, significant[index + 1], significant[index + 3])]
        if shape == ["_Pragma", "(", ")"] and operand.kind == "string" \
                and _PRAGMA_IGNORED.match(_cpp_string_value(_text(code, operand))):
            start, end = token.start, significant[index + 3].end
            yield Suppression("_Pragma diagnostic ignored", _line_of(code, start),
                              (Edit(start, end, blank(code[start:end], utf8=True)),))


def _stringized_pragmas(code: str, significant: list[Token]) -> Iterator[Suppression]:
    """``clang|GCC diagnostic ignored "-W..."`` as tokens (a macro argument that becomes a
    pragma): ``ignored`` and its strings become ``push`` and spaces."""
    words = [_text(code, token) for token in significant]
    for index in range(len(words) - 2):
        if words[index] in _DIAGNOSTIC_NAMESPACES and words[index + 1:index + 3] == ["diagnostic", "ignored"]:
            last = index + 2
            while last + 1 < len(significant) and significant[last + 1].kind == "string":
                last += 1
            start, end = significant[index + 2].start, significant[last].end
            text = "push" + blank(code[start + 4:end], utf8=True)
            yield Suppression("diagnostic ignored (macro argument)", _line_of(code, start), (Edit(start, end, text),))


def _cpp_string_value(literal: str) -> str:
    """The characters a C++ string literal stands for (enough for pragma text)."""
    body = re.sub(r"^(?:u8|u|U|L)", "", literal)
    if body.startswith("R"):
        delimiter = body[2:body.index("(")]
        return body[len(delimiter) + 3:-len(delimiter) - 2]
    return re.sub(r"\\(.)", r"\1", body[1:-1])


# ---------------------------------------------------------------------------------------
# Python / pylint
# ---------------------------------------------------------------------------------------

# pylint's pragma, as its OPTION_PO finds it in a comment: from the last '#' before a
# `pylint:`; the pragma text stops at ';', '#' or the line end.
_PYLINT_PRAGMA = re.compile(r"#[^#]*?\bpylint:\s*([^;#\n]+)")
_PYLINT_TOKEN = re.compile(
    r"(?P<keyword>\b(?:disable-next|disable-all|disable-msg|enable-msg|skip-file|disable|enable)\b)"
    r"|(?P<message>[0-9A-Za-z\-_]{2,})|(?P<assign>=)|(?P<message_id>[CREIWF]\d*)"
)
_ATOMIC_ACTIONS = frozenset({"disable-all", "skip-file"})
_SUPPRESSING_ACTIONS = frozenset({"disable", "disable-next", "disable-msg", "disable-all", "skip-file"})
_TYPE_IGNORE = "# type: ignore["  # + spaces + "]": left out of line lengths as pylint's pragma is


def _py3_suppressions(code: str) -> list[Suppression]:
    found: list[Suppression] = []
    for offset, comment in python_comments(code):
        found += _pylint_comment_suppressions(code, offset, comment)
    return found


def _pylint_comment_suppressions(code: str, offset: int, comment: str) -> list[Suppression]:
    pragmas = list(_PYLINT_PRAGMA.finditer(comment))
    if not pragmas:
        return []
    effective = pragmas[-1]
    actions = [action for action in pylint_actions(effective.group(1)) if action in _SUPPRESSING_ACTIONS]
    if not actions:
        return []
    edits = (_overwrite_pragma(offset, effective), *(_break_pragma(offset, m) for m in pragmas[:-1]))
    line = _line_of(code, offset)
    return [Suppression(f"pylint: {action}", line, edits if index == 0 else ())
            for index, action in enumerate(actions)]


def pylint_actions(pragma: str) -> list[str]:
    """The actions pylint applies from the text after ``pylint:``, in order.

    Mirrors pylint's parser: a keyword that takes messages needs ``=`` and at least one;
    at the first malformed part pylint stops, keeping what it had applied."""
    actions: list[str] = []
    action, messages, needs_assign = "", 0, False
    for token in _PYLINT_TOKEN.finditer(pragma):
        kind = token.lastgroup
        if kind == "assign" or needs_assign:
            if kind != "assign" or not needs_assign:
                return actions
            needs_assign = False
        elif kind == "keyword":
            if action and not _complete(action, messages):
                return actions
            actions += [action] if action else []
            action, messages, needs_assign = token.group(), 0, token.group() not in _ATOMIC_ACTIONS
        else:
            messages += 1
    if action and not needs_assign and _complete(action, messages):
        actions.append(action)
    return actions


def _complete(action: str, messages: int) -> bool:
    return action in _ATOMIC_ACTIONS or messages > 0


def _overwrite_pragma(offset: int, pragma: re.Match[str]) -> Edit:
    """The effective pragma as ``# type: ignore[  ]`` of the same length."""
    width = pragma.end() - pragma.start()
    if width < len(_TYPE_IGNORE) + 1:  # not reachable for a suppressing pragma (17+ characters)
        return _break_pragma(offset, pragma)
    filler = " " * (width - len(_TYPE_IGNORE) - 1)
    return Edit(offset + pragma.start(), offset + pragma.end(), _TYPE_IGNORE + filler + "]")


def _break_pragma(offset: int, pragma: re.Match[str]) -> Edit:
    """``pylint:`` -> ``pylXnt:``, which pylint does not read."""
    start = offset + pragma.start() + pragma.group(0).index("pylint:") + 3
    return _mark(start, "i", "X")


def python_comments(code: str) -> list[tuple[int, str]]:
    """(character offset, text) of every comment: tokenize's COMMENT tokens, or a careful
    character scan when tokenize fails on broken code."""
    lines = io.StringIO(code, newline="").readlines()
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code, newline="").readline))
    except (tokenize.TokenError, SyntaxError):
        return list(_scan_python_comments(code))
    return [(starts[t.start[0] - 1] + t.start[1], t.string) for t in tokens if t.type == tokenize.COMMENT]


_PYTHON_LEXEME = re.compile(
    r"""(?P<string>('''|\"\"\")(?:\\[\s\S]|(?!\2)[\s\S])*(?:\2|\Z)
        |'(?:\\[\s\S]|[^'\\\r\n])*(?:'|(?=[\r\n])|\Z)
        |"(?:\\[\s\S]|[^"\\\r\n])*(?:"|(?=[\r\n])|\Z))
    |(?P<comment>\#[^\r\n]*)
    |[^'"\#]+""",
    re.VERBOSE,
)


def _scan_python_comments(code: str) -> Iterator[tuple[int, str]]:
    for match in _PYTHON_LEXEME.finditer(code):
        if match.lastgroup == "comment":
            yield match.start(), match.group()


# ---------------------------------------------------------------------------------------
# Java / PMD
# ---------------------------------------------------------------------------------------

_ANNOTATION_NAMES = ("SuppressWarnings", "java.lang.SuppressWarnings")
_PMD_VALUES = frozenset({"PMD", "all", "unused", "serial"})
_JAVA_ESCAPE = re.compile(r"\\u+([0-9a-fA-F]{4})|\\([0-7]{1,3})|\\([\s\S])")
_JAVA_SIMPLE_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", "s": " ", "\n": ""}


def pmd_honours(value: str) -> bool:
    """Whether PMD takes this ``@SuppressWarnings`` value as suppressing some of its rules."""
    return value in _PMD_VALUES or value.startswith("PMD.")


def _java_suppressions(code: str) -> list[Suppression]:
    tokens = lex_c_family(code, java=True)
    return [*_nopmd_comments(code, tokens), *_suppress_warnings(code, tokens)]


def _nopmd_comments(code: str, tokens: list[Token]) -> Iterator[Suppression]:
    for token in tokens:
        text = _text(code, token)
        if token.kind == "comment" and text.startswith("//") and "NOPMD" in text:
            edits = tuple(_mark(token.start + m.start() + 3, "M", "X") for m in re.finditer("NOPMD", text))
            yield Suppression("NOPMD", _line_of(code, token.start), edits)


def _suppress_warnings(code: str, tokens: list[Token]) -> Iterator[Suppression]:
    significant = [token for token in tokens if token.kind not in ("comment", "newline")]
    texts = [_text(code, token) for token in significant]
    for index, text in enumerate(texts):
        if text != "@":
            continue
        arguments = _annotation_arguments(texts, index + 1)
        if arguments is None:
            continue
        elements = [[significant[i] for i in element] for element in _annotation_elements(texts, *arguments)]
        span = (significant[index].start, significant[arguments[1]].end)  # from '@' to ')'
        yield from _annotation_suppressions(code, span, [element for element in elements if element])


def _annotation_arguments(texts: list[str], first: int) -> tuple[int, int] | None:
    """(first, end) token indices inside ``SuppressWarnings(...)`` starting at ``first``."""
    last = first
    while last + 2 < len(texts) and texts[last + 1] == "." and texts[last + 2][:1].isalpha():
        last += 2
    if "".join(texts[first:last + 1]) not in _ANNOTATION_NAMES or texts[last + 1:last + 2] != ["("]:
        return None
    depth = 0
    for index in range(last + 1, len(texts)):
        depth += {"(": 1, ")": -1}.get(texts[index], 0)
        if depth == 0:
            return last + 2, index
    return None


def _annotation_elements(texts: list[str], first: int, end: int) -> Iterator[list[int]]:
    """Token indices of each value of ``value = {a, b}`` / ``{a, b}`` / ``a``."""
    if texts[first:first + 2] == ["value", "="]:
        first += 2
    if first < end and texts[first] == "{" and texts[end - 1] == "}":
        first, end = first + 1, end - 1
    element: list[int] = []
    for index in range(first, end):
        if texts[index] == ",":
            yield element
            element = []
        else:
            element.append(index)
    yield element


def _annotation_suppressions(code: str, span: tuple[int, int], elements: list[list[Token]]) -> list[Suppression]:
    """One Suppression per honoured value. An annotation of honoured values only is blanked
    whole: left in place, PMD would report how it is written (``value =``, ``java.lang.``),
    which the program without it does not have. Otherwise the honoured values are disguised
    and the annotation stays, for the names PMD does not read."""
    values = [_constant_value(code, element) for element in elements]
    honoured = [(element, value) for element, value in zip(elements, values, strict=True)
                if value is not None and pmd_honours(value)]
    if not honoured:
        return []
    if len(honoured) == len(elements):
        start, end = span
        whole = (Edit(start, end, blank(code[start:end], utf8=False)),)
        edits = [whole, *[()] * (len(honoured) - 1)]
    else:
        edits = [_disguise_value(code, [t for t in element if t.kind == "string"]) for element, _ in honoured]
    return [Suppression(f'@SuppressWarnings("{value}")', _line_of(code, element[0].start), element_edits)
            for (element, value), element_edits in zip(honoured, edits, strict=True)]


def _constant_value(code: str, element: list[Token]) -> str | None:
    """The value of a constant string expression of literals, ``+`` and parentheses."""
    if not any(token.kind == "string" for token in element):
        return None
    if any(token.kind != "string" and _text(code, token) not in ("+", "(", ")") for token in element):
        return None
    return "".join(java_string_value(_text(code, token)) for token in element if token.kind == "string")


def _disguise_value(code: str, parts: list[Token]) -> tuple[Edit, ...]:
    """Edits giving the literals a value PMD does not honour: the case of its first letter
    swapped, or, when that cannot be done, every literal's contents blanked."""
    literals = [_text(code, token) for token in parts]
    for index, literal in enumerate(literals):
        swapped = _swap_first_letter(literal)
        if swapped is None:
            continue
        candidate = [*literals[:index], swapped, *literals[index + 1:]]
        if not pmd_honours("".join(map(java_string_value, candidate))):
            return (Edit(parts[index].start, parts[index].end, swapped),)
        break
    return tuple(Edit(token.start, token.end, _blank_java_literal(literal))
                 for token, literal in zip(parts, literals, strict=True))


def _swap_first_letter(literal: str) -> str | None:
    """``literal`` with the case of its first ASCII letter outside escapes swapped."""
    position = 3 if literal.startswith('"""') else 1
    while position < len(literal):
        escape = _JAVA_ESCAPE.match(literal, position)
        if escape:
            position = escape.end()
            continue
        char = literal[position]
        if char.isascii() and char.isalpha():
            return literal[:position] + char.swapcase() + literal[position + 1:]
        position += 1
    return None


def _blank_java_literal(literal: str) -> str:
    quote = '"""' if literal.startswith('"""') else '"'
    return quote + blank(literal[len(quote):-len(quote)], utf8=False) + quote


def java_string_value(literal: str) -> str:
    """The value of a Java string literal or text block (incidental indentation stripped)."""
    if literal.startswith('"""'):
        return _unescape_java(_strip_text_block(literal[3:-3]))
    return _unescape_java(literal[1:-1])


def _strip_text_block(raw: str) -> str:
    lines = re.split(_NEWLINE, raw)[1:]  # the opening line holds only the delimiter
    if not lines:
        return ""
    significant = [line for line in lines[:-1] if line.strip()] + [lines[-1]]
    indent = min(len(line) - len(line.lstrip(" \t\f")) for line in significant)
    stripped = [line[indent:].rstrip(" \t\f") for line in lines]
    return "\n".join(stripped)


def _unescape_java(raw: str) -> str:
    def replace(match: re.Match[str]) -> str:
        unicode, octal, simple = match.groups()
        if unicode:
            return chr(int(unicode, 16))
        if octal:
            return chr(int(octal, 8))
        return _JAVA_SIMPLE_ESCAPES.get(simple, simple)
    return _JAVA_ESCAPE.sub(replace, raw)


_FINDERS: dict[str, Callable[[str], list[Suppression]]] = {
    "cpp": _cpp_suppressions,
    "py3": _py3_suppressions,
    "java": _java_suppressions,
}
