"""pylint's suppressions in Python code, and how each is disarmed (``validate/lint/suppressions.py``).

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


Counting: one per suppressing pylint action pylint applies (``disable=a,b`` is one,
``disable=a, disable-next=b`` is two, an inert pragma before the effective one is none).

Not handled (pylint honours it; callers should know): a ``# pylint: disable=line-too-long``
written inside a string on a long line that has no comment, for line-too-long only.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterator

from linteval_ray.validate.lint.directives import Edit, Suppression, SuppressionRules, line_of, mark

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


def py3_suppressions(code: str) -> list[Suppression]:
    """Every pylint suppression of ``code``."""
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
    line = line_of(code, offset)
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
    return mark(start, "i", "X")


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


RULES = SuppressionRules(find=py3_suppressions)
