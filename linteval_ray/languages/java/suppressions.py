"""PMD's suppressions in Java code, and how each is disarmed (``validate/lint/suppressions.py``).

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


Counting: one ``//`` comment holding NOPMD, one honoured ``@SuppressWarnings`` value
(``{"PMD.A", "PMD.B", "unchecked"}`` is two).

Not handled (PMD honours them; callers should know): suppressions whose value is a named constant
(``@SuppressWarnings(NAMES)``) and Java unicode escapes outside string literals are not resolved.
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

JAVA_LEXEME = re.compile(
    rf"""(?P<newline>{NEWLINE})
    |(?P<skip>[ \t\f]+)
    |(?P<comment>//[^\r\n]*|/\*[\s\S]*?(?:\*/|\Z))
    |(?P<string>\"\"\"[ \t\f]*(?:{NEWLINE})(?:\\[\s\S]|[^\\])*?(?:\"\"\"|\Z)
        |"(?:\\[\s\S]|[^"\\\r\n])*"
        |'(?:\\[\s\S]|[^'\\\r\n])*')
    |(?P<word>[0-9A-Za-z_$\x80-\U0010ffff]+)
    |(?P<punct>[\s\S])""",
    re.VERBOSE,
)


def lex_java(code: str) -> list[Token]:
    """Java lexemes of ``code`` (text blocks too); whitespace dropped."""
    return lex(code, JAVA_LEXEME)



_ANNOTATION_NAMES = ("SuppressWarnings", "java.lang.SuppressWarnings")
_PMD_VALUES = frozenset({"PMD", "all", "unused", "serial"})
_JAVA_ESCAPE = re.compile(r"\\u+([0-9a-fA-F]{4})|\\([0-7]{1,3})|\\([\s\S])")
_JAVA_SIMPLE_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", "s": " ", "\n": ""}


def pmd_honours(value: str) -> bool:
    """Whether PMD takes this ``@SuppressWarnings`` value as suppressing some of its rules."""
    return value in _PMD_VALUES or value.startswith("PMD.")


def java_suppressions(code: str) -> list[Suppression]:
    """Every PMD suppression of ``code``."""
    tokens = lex_java(code)
    return [*_nopmd_comments(code, tokens), *_suppress_warnings(code, tokens)]


def _nopmd_comments(code: str, tokens: list[Token]) -> Iterator[Suppression]:
    for token in tokens:
        text = token_text(code, token)
        if token.kind == "comment" and text.startswith("//") and "NOPMD" in text:
            edits = tuple(mark(token.start + m.start() + 3, "M", "X") for m in re.finditer("NOPMD", text))
            yield Suppression("NOPMD", line_of(code, token.start), edits)


def _suppress_warnings(code: str, tokens: list[Token]) -> Iterator[Suppression]:
    significant = [token for token in tokens if token.kind not in ("comment", "newline")]
    texts = [token_text(code, token) for token in significant]
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
    return [Suppression(f'@SuppressWarnings("{value}")', line_of(code, element[0].start), element_edits)
            for (element, value), element_edits in zip(honoured, edits, strict=True)]


def _constant_value(code: str, element: list[Token]) -> str | None:
    """The value of a constant string expression of literals, ``+`` and parentheses."""
    if not any(token.kind == "string" for token in element):
        return None
    if any(token.kind != "string" and token_text(code, token) not in ("+", "(", ")") for token in element):
        return None
    return "".join(java_string_value(token_text(code, token)) for token in element if token.kind == "string")


def _disguise_value(code: str, parts: list[Token]) -> tuple[Edit, ...]:
    """Edits giving the literals a value PMD does not honour: the case of its first letter
    swapped, or, when that cannot be done, every literal's contents blanked."""
    literals = [token_text(code, token) for token in parts]
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
    lines = re.split(NEWLINE, raw)[1:]  # the opening line holds only the delimiter
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


RULES = SuppressionRules(find=java_suppressions)
