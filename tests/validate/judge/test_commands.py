"""generator_cmd lines split as a POSIX shell would; shell syntax is a named error, never run."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from linteval_ray.validate.judge.commands import CommandSyntaxError, GeneratorCommand, parse_generator_cmd


def _one(line: str) -> GeneratorCommand:
    commands = parse_generator_cmd(line)
    assert len(commands) == 1, commands
    return commands[0]


def _argv(line: str) -> list[str] | None:
    command = _one(line)
    assert command.error is None, command.error
    return command.argv


# (line, the words a shell passes): every case is also checked against /bin/sh below.
SPLITS = [
    ("./gen -n 10 -type random", ["./gen", "-n", "10", "-type", "random"]),
    ("./gen -type min_value # x = 1", ["./gen", "-type", "min_value"]),
    ("./gen -n 5#comment-less", ["./gen", "-n", "5#comment-less"]),
    ("./gen -tag a#b", ["./gen", "-tag", "a#b"]),
    ("./gen -c '#'", ["./gen", "-c", "#"]),
    ('./gen -c "#" -d "a # b"', ["./gen", "-c", "#", "-d", "a # b"]),
    ('./gen -s "a b"', ["./gen", "-s", "a b"]),
    ("./gen -s 'a  b'", ["./gen", "-s", "a  b"]),
    (r"./gen -s a\ b", ["./gen", "-s", "a b"]),
    (r"./gen -c \#", ["./gen", "-c", "#"]),
    ("./gen -s pre'fix 'post", ["./gen", "-s", "prefix post"]),
    ('./gen -e ""', ["./gen", "-e", ""]),
    (r'./gen -q "a\"b" "c\d"', ["./gen", "-q", 'a"b', r"c\d"]),
    (r"./gen -q 'a\b'", ["./gen", "-q", r"a\b"]),
    ("./gen\t-n\t3   ", ["./gen", "-n", "3"]),
    ("./gen -p $ -k a$", ["./gen", "-p", "$", "-k", "a$"]),
    ("./gen -x '>' \"|\" ';' '&&' '$(x)' '`x`' '2>' '$HOME'",
     ["./gen", "-x", ">", "|", ";", "&&", "$(x)", "`x`", "2>", "$HOME"]),
]


@pytest.mark.parametrize(("line", "words"), SPLITS)
def test_lines_split_into_the_words_a_shell_passes(line: str, words: list[str]) -> None:
    assert _argv(line) == words


@pytest.mark.skipif(shutil.which("sh") is None, reason="no /bin/sh to compare with")
@pytest.mark.parametrize(("line", "words"), SPLITS)
def test_the_split_matches_a_real_posix_shell(line: str, words: list[str]) -> None:
    # printf prints each word the line passes, one per line (no case holds a newline).
    shell = subprocess.run(["sh", "-c", f"printf '%s\\n' {line}"], capture_output=True, text=True, check=True)
    assert shell.stdout.split("\n")[:-1] == words


def test_the_comment_is_cut_from_command_but_kept_in_line() -> None:
    command = _one("  ./gen -type min_value # x = 1  ")
    assert command.line == "./gen -type min_value # x = 1"
    assert command.command == "./gen -type min_value"
    assert command.args == ["-type", "min_value"]


@pytest.mark.parametrize(
    ("line", "args"),
    [("./gen -n 5", ["-n", "5"]), ("gen -n 5", ["-n", "5"]), ("./generator 1 2", ["1", "2"]), ("-n 5", ["-n", "5"])],
)
def test_the_generator_name_is_dropped_unless_the_line_starts_with_an_option(line: str, args: list[str]) -> None:
    assert _one(line).args == args


OPERATORS = [
    ("./gen -n 5 > out.txt", "redirection '>'"),
    ("./gen -n 5 >out.txt", "redirection '>'"),
    ("./gen -n 5>out.txt", "redirection '5>'"),  # as in sh: file descriptor 5
    ("./gen -n 5 >> out.txt", "redirection '>>'"),
    ("./gen -n 5 < in.txt", "redirection '<'"),
    ("./gen -n 5 2> err.txt", "redirection '2>'"),
    ("./gen -n 5 2>&1", "redirection '2>&'"),
    ("./gen -n 5 <<EOF", "here-document '<<'"),
    ("./gen -n 5 | head", "pipe '|'"),
    ("./gen -n 5; ./gen -n 6", "command separator ';'"),
    ("./gen -n 5 && echo ok", "and-list '&&'"),
    ("./gen -n 5 || echo failed", "or-list '||'"),
    ("./gen -n 5 &", "background job '&'"),
    ("(./gen -n 5)", "subshell '('"),
    ("./gen -n `echo 5`", "command substitution '`'"),
    ("./gen -n $(echo 5)", "command substitution '$('"),
    ('./gen -n "$(echo 5)"', "command substitution '$('"),
    ('./gen -n "`echo 5`"', "command substitution '`'"),
    ("./gen -n $((2 + 3))", "arithmetic expansion '$(('"),
    ("./gen -n $N", "parameter expansion '$N'"),
    ('./gen -n "${N}"', "parameter expansion '${'"),
    ("N=5 ./gen", "variable assignment 'N='"),
    ("./gen -x '>' \"|\" ';' '&&' \"$(x)\"x", "command substitution '$('"),  # quoted ones pass
]


@pytest.mark.parametrize(("line", "named"), OPERATORS)
def test_shell_operators_are_a_named_error_never_argv(line: str, named: str) -> None:
    command = _one(line)
    assert command.argv is None
    assert command.error == f"generator command uses a shell {named}: not supported"
    with pytest.raises(CommandSyntaxError, match="not supported"):
        _ = command.args  # a refused line has no arguments to run


def test_digits_before_a_redirection_name_a_descriptor_only_when_unquoted_and_alone() -> None:
    assert _one("./gen -n 52> x").error == "generator command uses a shell redirection '52>': not supported"
    assert _one("./gen -n '2'> x").error == "generator command uses a shell redirection '>': not supported"
    assert _one("./gen -n a2> x").error == "generator command uses a shell redirection '>': not supported"


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ("./gen -s 'a b", "generator command has an unterminated single quote"),
        ('./gen -s "a b', "generator command has an unterminated double quote"),
        (r'./gen -s "a b\"', "generator command has an unterminated double quote"),
        ("./gen -s a \\", "generator command uses a shell line continuation '\\': not supported"),
    ],
)
def test_an_unterminated_quote_is_an_error(line: str, error: str) -> None:
    command = _one(line)
    assert (command.argv, command.error) == (None, error)
    assert command.command == line.strip()


def test_blank_and_comment_only_lines_make_no_command_and_numbers_are_line_numbers() -> None:
    text = "\n   \n# a comment\n  # indented comment\n./gen -n 1\n\t\n./gen -n 2 > x\n#\n./gen -n 3\n"
    commands = parse_generator_cmd(text)
    assert [(c.number, c.command) for c in commands] == [(5, "./gen -n 1"), (7, "./gen -n 2 > x"), (9, "./gen -n 3")]
    assert [c.error is None for c in commands] == [True, False, True]
    assert commands[1].describe() == (
        "line 7 './gen -n 2 > x': generator command uses a shell redirection '>': not supported"
    )


def test_crlf_line_endings_are_not_part_of_the_last_word() -> None:
    assert [c.argv for c in parse_generator_cmd("./gen -n 1\r\n./gen -n 2\r\n")] == [
        ["./gen", "-n", "1"],
        ["./gen", "-n", "2"],
    ]
