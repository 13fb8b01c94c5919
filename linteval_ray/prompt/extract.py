"""Pull the revised program out of a model's free-form answer, byte for byte as LintEval does.

``extract`` returns an :class:`Extraction`: the code and how it was found (``"fenced"`` or
``"bare"``), or why there is none (:class:`ExtractionFailure`). ``extract_code`` is the
code alone (None on failure). Rules, applied in order; each says whether the dataset card
(``linteval-dataset-card.txt``) *shows* it (known) or we chose it (inferred):

1. Reasoning (inferred; ``prompt/reasoning.py``, shared with token counts and the results
   browser). Everything up to the last ``</think>`` (any case) is dropped; this also covers
   templates that put the opening ``<think>`` in the prompt. The whitespace-only lines between
   that ``</think>`` and the answer go too (the rest is kept as written). A ``<think>`` that is
   never closed means the model never reached its answer: ``unclosed_think``.
2. Nothing left but whitespace: ``empty``.
3. Lines (inferred detail). The answer is split after each ``\\n``; a line's ending (``\\n``
   or ``\\r\\n``) is ignored when looking for fences but kept in the code, so CRLF answers
   give CRLF code. A lone ``\\r`` is not a line break.
4. Fenced blocks, CommonMark style (inferred detail). An opening line is up to three spaces,
   three or more backticks or tildes, and an optional info string (no backtick in it for a
   backtick fence); its first word, lower-cased, is the block's tag. The block closes at a
   line holding only a run of the same character at least as long (plus whitespace).
5. Fenced code (known: 1152_B_cpp_0, 1007_D_cpp_0, 1045_F_cpp_0 and 106_C_cpp_0 have
   ``revised_code`` equal to their fence's content, indentation and inner blank lines kept).
   The code is the lines strictly between the opening and closing fence lines, each with its
   own line ending: a closed block ends with the newline before its closing fence, and blank
   lines anywhere in it, the last ones included, are kept (that the final newline and
   trailing blank lines stay is inferred: the card's cells are truncated before the end).
   Inferred, for answers the card does not show: a closing fence glued to the last code line
   (``}`` followed by the fence on one line) closes the block too, and the code ends with
   that line's text before the fence, trailing whitespace removed, no newline added. A block
   left open at the end of the answer (out of tokens, or never closed) runs to the end of
   the answer exactly as written.
6. Block choice (inferred). Of the blocks with non-blank content, the LAST one tagged with
   the language (its spec's ``fence_tags``: ``cpp``/``c++``/``cc``..., ``python``/``py``/``py3``...,
   ``java``), failing that the last untagged one, failing that the last one: models put the
   final version after drafts and diffs. Blocks exist but all are blank: ``empty``.
7. No fence at all: bare code (known: 1036_A_py3_0's unfenced ``raw_response`` IS its
   ``revised_code``, without a final newline, so pylint's missing-final-newline stays). The
   code is the answer exactly as given: no newline added, nothing stripped, CRLF kept. It is
   accepted only when it is a program rather than prose (inferred), else ``no_code_block``;
   the language's spec says which test applies (``bare_code_test``):

   - ``python_program`` (py3): it compiles (``compile(..., "exec", dont_inherit=True)``, so
     this module's ``__future__`` flags do not leak in) and at least one top-level statement
     does something: any statement but an expression statement, or an expression statement
     holding a call or ``:=``. A module of bare names, constants, tuples, attributes or
     operators (``Done``, ``42``, ``Yes, done``) is prose that happens to parse: running it
     has no effect, which is what pylint calls a pointless statement.
   - ``not_prose`` (cpp, java): there is no cheap parser, so the test is conservative and
     only rejects text that is obviously prose: it has no ``;``, ``{`` or ``}`` at all, or its
     first non-blank line is a sentence (starts with a letter, at least three words, ends in
     ``:`` or ``.``, no code punctuation such as ``;{}()[]<>=#"/*&|`` or ``::``). Anything else is
     ``kind="bare"``; the engine treats a bare cpp/java revision that fails to compile as an
     extraction failure, so prose mistaken for code is still not scored as a revision.

Deciding that a response was cut off (``truncated``) needs the generation's finish reason and
is left to the caller.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from linteval_ray.languages.base import BareCodeTest
from linteval_ray.languages.registry import language as language_spec
from linteval_ray.prompt.reasoning import split_reasoning
from linteval_ray.schema.record import Language

ExtractionKind = Literal["fenced", "bare", "given"]  # given: a revised_code column, no extraction


class ExtractionFailure(StrEnum):
    NO_CODE_BLOCK = "no_code_block"  # no fence, and the text is not a program
    UNCLOSED_THINK = "unclosed_think"  # a <think> never closed: the model never answered
    EMPTY = "empty"  # blank answer, or only blank blocks


@dataclass(frozen=True, slots=True)
class Extraction:
    """The code and how it was found, or why there is none (exactly one of the two)."""

    code: str | None
    kind: ExtractionKind | None
    failure: ExtractionFailure | None

    def __post_init__(self) -> None:
        if (self.code is None) == (self.failure is None) or (self.code is None) != (self.kind is None):
            raise ValueError(f"an extraction has either code and kind or a failure: {self!r}")

    @classmethod
    def found(cls, code: str, kind: ExtractionKind) -> Extraction:
        return cls(code=code, kind=kind, failure=None)

    @classmethod
    def failed(cls, failure: ExtractionFailure) -> Extraction:
        return cls(code=None, kind=None, failure=failure)


@dataclass(frozen=True, slots=True)
class CodeBlock:
    tag: str  # first word of the info string, lower-cased ("" when untagged)
    code: str
    closed: bool


_OPENING = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")
_BRACE_OR_SEMICOLON = re.compile(r"[;{}]")
_SENTENCE = re.compile(r"[A-Za-z][^;{}()\[\]<>=#\"/\\*&|+^%~?`]*[:.]")
# Expression statements holding one of these do something; the rest are pointless (rule 7).
_EFFECTS = (ast.Call, ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom)


def extract_code(response: str, language: Language) -> str | None:
    """The program in ``response`` (see the module docstring for the rules), or None."""
    return extract(response, language).code


def extract(response: str, language: Language) -> Extraction:
    """The program in ``response`` and how it was found, or why there is none."""
    answer = split_reasoning(response).answer
    if answer is None:
        return Extraction.failed(ExtractionFailure.UNCLOSED_THINK)
    if not answer.strip():
        return Extraction.failed(ExtractionFailure.EMPTY)
    blocks = fenced_blocks(answer)
    if blocks:
        filled = [b for b in blocks if b.code.strip()]
        if not filled:
            return Extraction.failed(ExtractionFailure.EMPTY)
        return Extraction.found(choose_block(filled, language).code, "fenced")
    if is_bare_program(answer, language):
        return Extraction.found(answer, "bare")
    return Extraction.failed(ExtractionFailure.NO_CODE_BLOCK)


def split_lines(text: str) -> list[str]:
    """The lines of ``text``, each with its own ending (the last one may have none)."""
    return _LINE.findall(text)


def fenced_blocks(text: str) -> list[CodeBlock]:
    """Every fenced block of ``text`` in order (an unterminated last block runs to the end)."""
    lines = split_lines(text)
    blocks: list[CodeBlock] = []
    i = 0
    while i < len(lines):
        opening = _opening_fence(_without_ending(lines[i]))
        if opening is None:
            i += 1
            continue
        fence, tag = opening
        block, i = _read_block(lines, i + 1, fence, tag)
        blocks.append(block)
    return blocks


def choose_block(blocks: list[CodeBlock], language: Language) -> CodeBlock:
    """The last block tagged with ``language``, else the last untagged one, else the last."""
    tags = language_spec(language).fence_tags
    tagged = [b for b in blocks if b.tag in tags]
    untagged = [b for b in blocks if not b.tag]
    return (tagged or untagged or blocks)[-1]


def is_bare_program(text: str, language: Language) -> bool:
    """True when an unfenced answer is a program, not prose (rule 7)."""
    return _BARE_CODE_TESTS[language_spec(language).bare_code_test](text)


def _without_ending(line: str) -> str:
    return line.removesuffix("\n").removesuffix("\r")


def _opening_fence(line: str) -> tuple[str, str] | None:
    """(fence, tag) when ``line`` opens a block (rule 4)."""
    opening = _OPENING.match(line)
    if opening is None or (opening["fence"][0] == "`" and "`" in opening["info"]):
        return None
    info = opening["info"].split()
    return opening["fence"], info[0].lower() if info else ""


def _read_block(lines: list[str], start: int, fence: str, tag: str) -> tuple[CodeBlock, int]:
    """The block whose content starts at ``lines[start]``, and the index of the line after it."""
    char = re.escape(fence[0])
    closing = re.compile(rf"^(?P<glued>.*?)(?<!{char}){char}{{{len(fence)},}}\s*$")
    for j in range(start, len(lines)):
        line = _without_ending(lines[j])
        match = closing.match(line)
        if match is None:
            continue
        content = "".join(lines[start:j])
        if not match["glued"].strip():
            return CodeBlock(tag, content, closed=True), j + 1
        if _opening_fence(line) is None:  # glued fence; a line that opens a block does not close one
            return CodeBlock(tag, content + match["glued"].rstrip(), closed=True), j + 1
    return CodeBlock(tag, "".join(lines[start:]), closed=False), len(lines)


def _is_python_program(text: str) -> bool:
    try:
        tree = ast.parse(text, "<response>", "exec")
        compile(tree, "<response>", "exec", dont_inherit=True)  # scope errors: return/await outside def
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # the last two: nesting too deep
        return False
    return any(_does_something(statement) for statement in tree.body)


def _does_something(statement: ast.stmt) -> bool:
    if not isinstance(statement, ast.Expr):
        return True
    return any(isinstance(node, _EFFECTS) for node in ast.walk(statement.value))


def _is_obvious_prose(text: str) -> bool:
    """Conservative: only text no C++/Java program could be (rule 7)."""
    if _BRACE_OR_SEMICOLON.search(text) is None:
        return True
    first = next(line for line in text.splitlines() if line.strip()).strip()
    return len(first.split()) >= 3 and "::" not in first and _SENTENCE.fullmatch(first) is not None


_BARE_CODE_TESTS: dict[BareCodeTest, Callable[[str], bool]] = {
    "python_program": _is_python_program,
    "not_prose": lambda text: not _is_obvious_prose(text),
}
