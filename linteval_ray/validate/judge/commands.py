"""Generator command lines (``generator_cmd``), split into words as a POSIX shell would.

Each line is one command such as ``./gen -n 10 -type random # largest``. Words follow the
shell's quoting rules (``'...'``, ``"..."``, backslash escapes; quotes are removed) and
``#`` starts a comment only at the start of a word, so ``-tag a#b`` and ``-c '#'`` keep
their ``#``. The words are never given to a shell: a line that needs one (redirection,
pipe, ``;``/``&&``/``||`` lists, ``&``, subshells, command substitution, parameter
expansion, a variable assignment) is an ``error`` naming the construct instead of argv
the shell would have treated differently. Globs and ``~`` are left as written (sh passes
an unmatched glob through unchanged; the generator's work dir is empty).

Not ``shlex``: ``shlex.shlex(posix=True)`` starts a comment at a ``#`` inside a word
(``a#b`` -> ``a``), and with ``punctuation_chars`` a quoted ``'>'`` and an operator ``>``
come out as the same token.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict

# Space and tab are the shell's blanks; CR and the other ASCII spaces are blanks here too
# (CRLF files; no generator argument means to hold them).
BLANKS = frozenset(" \t\r\f\v")
# Unquoted operators, longest first so ``>>`` is not read as ``>``.
OPERATORS: dict[str, str] = {
    ">>": "redirection",
    ">&": "redirection",
    ">|": "redirection",
    "<>": "redirection",
    "<&": "redirection",
    "<<": "here-document",
    "&&": "and-list",
    "||": "or-list",
    ">": "redirection",
    "<": "redirection",
    "|": "pipe",
    "&": "background job",
    ";": "command separator",
    "(": "subshell",
    ")": "subshell",
    "`": "command substitution",
}
# Characters a backslash escapes inside double quotes (elsewhere it keeps the backslash).
DOUBLE_QUOTE_ESCAPES = frozenset('$`"\\')
_PARAMETER = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?!$-])")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


class CommandSyntaxError(ValueError):
    """A generator command line the judge will not run (unsupported shell syntax)."""


class GeneratorCommand(BaseModel):
    """One non-blank, non-comment line of ``generator_cmd``: its words, or why not."""

    model_config = ConfigDict(frozen=True)

    number: int  # 1-based line number in generator_cmd
    line: str  # the line as written, stripped
    command: str  # the line without its trailing comment, stripped
    argv: list[str] | None = None  # the words a shell would pass (quotes removed); None on error
    error: str | None = None

    @property
    def args(self) -> list[str]:
        """The generator's arguments: the first word names the generator (``./gen``, ``gen``,
        ...) unless it is an option. Raises ``CommandSyntaxError`` for a line in error."""
        if self.argv is None:
            raise CommandSyntaxError(self.error or "generator command not parsed")
        return self.argv if self.argv and self.argv[0].startswith("-") else self.argv[1:]

    def describe(self) -> str:
        """``line N './gen ...': why`` for logs and problem errors."""
        return f"line {self.number} {self.line!r}: {self.error}"


def parse_generator_cmd(text: str) -> list[GeneratorCommand]:
    """Every command of ``generator_cmd`` in order; blank and comment-only lines give none."""
    commands = []
    for number, raw in enumerate(text.split("\n"), start=1):
        command = parse_line(raw, number)
        if command is not None:
            commands.append(command)
    return commands


def parse_line(raw: str, number: int = 1) -> GeneratorCommand | None:
    """One line as a command, or None when it holds no words (blank or only a comment)."""
    line = raw.strip()
    try:
        words, comment_at = split_words(raw)
    except CommandSyntaxError as exc:
        return GeneratorCommand(number=number, line=line, command=line, error=str(exc))
    if not words:
        return None
    return GeneratorCommand(number=number, line=line, command=raw[:comment_at].strip(), argv=words)


def split_words(line: str) -> tuple[list[str], int]:
    """The words of ``line`` and the index where its comment starts (``len(line)`` if none)."""
    words: list[str] = []
    i = 0
    while True:
        i = _skip_blanks(line, i)
        if i == len(line) or line[i] == "#":
            return words, i
        word, i = _read_word(line, i, first=not words)
        words.append(word)


def _skip_blanks(line: str, i: int) -> int:
    while i < len(line) and line[i] in BLANKS:
        i += 1
    return i


def _read_word(line: str, start: int, *, first: bool) -> tuple[str, int]:
    """The word starting at ``start`` (quotes removed) and the index after it."""
    if first and (assignment := _ASSIGNMENT.match(line, start)):
        raise _unsupported("variable assignment", assignment.group())
    parts: list[str] = []
    i = start
    while i < len(line) and line[i] not in BLANKS:
        char = line[i]
        if char == "\\":
            if i + 1 == len(line):
                raise _unsupported("line continuation", "\\")
            parts.append(line[i + 1])
            i += 2
        elif char == "'":
            end = line.find("'", i + 1)
            if end < 0:
                raise CommandSyntaxError("generator command has an unterminated single quote")
            parts.append(line[i + 1 : end])
            i = end + 1
        elif char == '"':
            text, i = _read_double_quoted(line, i + 1)
            parts.append(text)
        else:
            _refuse_expansion_or_operator(line, i, parts, start)
            parts.append(char)
            i += 1
    return "".join(parts), i


def _read_double_quoted(line: str, i: int) -> tuple[str, int]:
    """The text of a double-quoted string whose body starts at ``i``, and the index after it.
    ``$`` and backticks still expand inside double quotes, so they are refused here too."""
    parts: list[str] = []
    while i < len(line):
        char = line[i]
        if char == '"':
            return "".join(parts), i + 1
        if char == "\\" and i + 1 < len(line) and line[i + 1] in DOUBLE_QUOTE_ESCAPES:
            parts.append(line[i + 1])
            i += 2
            continue
        if char == "`":
            raise _unsupported("command substitution", "`")
        if char == "$":
            _refuse_dollar(line, i)
        parts.append(char)
        i += 1
    raise CommandSyntaxError("generator command has an unterminated double quote")


def _refuse_expansion_or_operator(line: str, i: int, parts: list[str], start: int) -> None:
    """Raise if an unquoted ``$`` expands or an operator starts at ``i``."""
    if line[i] == "$":
        _refuse_dollar(line, i)
        return
    operator = _operator_at(line, i)
    if operator is None:
        return
    kind = OPERATORS[operator]
    # ``2>``: digits written right before a redirection (unquoted) name the file descriptor.
    written = line[start:i]
    if kind == "redirection" and written.isdigit() and "".join(parts) == written:
        operator = written + operator
    raise _unsupported(kind, operator)


def _operator_at(line: str, i: int) -> str | None:
    for operator in OPERATORS:
        if line.startswith(operator, i):
            return operator
    return None


def _refuse_dollar(line: str, i: int) -> None:
    """``$(``, ``$((``, ``${`` and ``$name`` expand in sh; any other ``$`` is a plain character."""
    if line.startswith("$((", i):
        raise _unsupported("arithmetic expansion", "$((")
    if line.startswith("$(", i):
        raise _unsupported("command substitution", "$(")
    if line.startswith("${", i):
        raise _unsupported("parameter expansion", "${")
    parameter = _PARAMETER.match(line, i)
    if parameter is not None:
        raise _unsupported("parameter expansion", parameter.group())


def _unsupported(kind: str, what: str) -> CommandSyntaxError:
    return CommandSyntaxError(f"generator command uses a shell {kind} '{what}': not supported")
