"""Pull the revised program out of a model's free-form answer.

Rules, applied in order (``extract_code`` returns None when no rule yields code):

1. Line endings are normalised (CRLF and lone CR become LF).
2. Reasoning is dropped: everything up to the last ``</think>`` goes (this also covers
   templates that put the opening ``<think>`` in the prompt). A ``<think>`` that is
   never closed means the model never reached its answer: None.
3. Fenced blocks are found the CommonMark way: an opening line of three or more
   backticks or tildes (indented at most three spaces) with an optional info string;
   the block ends at a line of the same character, at least as long, with nothing
   else on it. Models also glue the closing fence to the last line (``return 0; }`` followed by the fence on the same line):
   a line that ends with such a run closes the block too, its text kept. A block
   left open at the end of the answer (the model ran out of tokens, or forgot to
   close it) runs to the end.
4. Of the blocks with non-blank content, the answer is the LAST one whose info
   string names the language (``cpp``/``c++``/``cc``..., ``python``/``py``/``py3``...,
   ``java``); failing that the last untagged block; failing that the last block
   of any tag. "Last" because models put the final version after drafts and diffs.
5. No fenced block at all: the whole answer is taken as bare code only when it
   plainly is code, not prose: its first non-blank line opens a program in that
   language (``#include``, ``import``, ``public class``, ...), and for Python the
   whole answer also parses. Anything else is None (an extraction failure), so
   prose is never compiled as if it were a program.

The code is returned as it appears in the block (common indentation kept, as an
indented block is still valid C++/Java and a Python file's indentation is
meaningful), with one trailing newline.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from linteval_ray.schema.record import Language

LANGUAGE_TAGS: dict[str, frozenset[str]] = {
    "cpp": frozenset({"cpp", "c++", "cc", "cxx", "hpp", "h++", "c"}),
    "py3": frozenset({"python", "python3", "py", "py3"}),
    "java": frozenset({"java"}),
}

_OPENING = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_THINK_OPEN = re.compile(r"<think>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think>", re.IGNORECASE)

_BARE_CODE_START: dict[str, re.Pattern[str]] = {
    "cpp": re.compile(
        r"^\s*(#\s*(include|define|pragma|import|if|ifdef|ifndef)\b|using\s|typedef\s|template\s*<|namespace\s"
        r"|(int|void|signed|auto)\s+main\s*\(|//|/\*)"
    ),
    "java": re.compile(r"^\s*(import\s|package\s|((public|final|abstract)\s+)*(class|interface|enum|record)\s|//|/\*|@)"),
    "py3": re.compile(r"^\s*(import\s|from\s+\S+\s+import\s|def\s|class\s|#|if\s|for\s|while\s|\w+(\s*,\s*\w+)*\s*=)"),
}


@dataclass(frozen=True)
class CodeBlock:
    tag: str  # first word of the info string, lower-cased ("" when untagged)
    code: str
    closed: bool


def extract_code(response: str, language: Language) -> str | None:
    """The program in ``response`` (see the module docstring for the rules), or None."""
    text = strip_reasoning(response.replace("\r\n", "\n").replace("\r", "\n"))
    if text is None:
        return None
    blocks = [b for b in fenced_blocks(text) if b.code.strip()]
    if blocks:
        return _with_final_newline(choose_block(blocks, language).code)
    if looks_like_bare_code(text, language):
        return _with_final_newline(text.strip("\n"))
    return None


def strip_reasoning(text: str) -> str | None:
    """``text`` after its last ``</think>``; None when a ``<think>`` is never closed."""
    closes = list(_THINK_CLOSE.finditer(text))
    if closes:
        return text[closes[-1].end() :]
    if _THINK_OPEN.search(text):
        return None
    return text


def fenced_blocks(text: str) -> list[CodeBlock]:
    """Every fenced block of ``text`` in order (an unterminated last block runs to the end)."""
    blocks: list[CodeBlock] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        opening = _OPENING.match(lines[i])
        if opening is None or (opening["fence"][0] == "`" and "`" in opening["info"]):
            i += 1
            continue
        fence = opening["fence"]
        closing = re.compile(rf"^(?P<glued>.*?)(?<!{re.escape(fence[0])}){re.escape(fence[0])}{{{len(fence)},}}\s*$")
        end, glued = len(lines), None
        for j in range(i + 1, len(lines)):
            match = closing.match(lines[j])
            if match and (not match["glued"].strip() or not _OPENING.match(lines[j])):
                end, glued = j, match["glued"]
                break
        body = lines[i + 1 : end]
        if glued is not None and glued.strip():
            body.append(glued.rstrip())
        info = opening["info"].strip().split()
        blocks.append(CodeBlock(tag=info[0].lower() if info else "", code="\n".join(body), closed=glued is not None))
        i = end + 1
    return blocks


def choose_block(blocks: list[CodeBlock], language: Language) -> CodeBlock:
    """The last block tagged with ``language``, else the last untagged one, else the last."""
    tagged = [b for b in blocks if b.tag in LANGUAGE_TAGS[language]]
    untagged = [b for b in blocks if not b.tag]
    return (tagged or untagged or blocks)[-1]


def looks_like_bare_code(text: str, language: Language) -> bool:
    """True when an unfenced answer is plainly a program (rule 5), not prose."""
    stripped = text.strip()
    if not stripped or not _BARE_CODE_START[language].match(stripped.split("\n", 1)[0]):
        return False
    if language == "py3":
        try:
            ast.parse(stripped)
        except (SyntaxError, ValueError):
            return False
    return True


def _with_final_newline(code: str) -> str:
    return code.rstrip("\n") + "\n"
