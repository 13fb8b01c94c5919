from __future__ import annotations

import pytest

from linteval_ray.prompt.extract import Extraction, ExtractionFailure, extract, extract_code

CPP = '#include <cstdio>\n\nint main() {\n    std::printf("%d\\n", 42);\n    return 0;\n}\n'
PY = "n, k = map(int, input().split())\nprint(-(-n // k))\n"
JAVA = "import java.util.Scanner;\n\npublic class Main {\n    public static void main(String[] a) {}\n}\n"

# Rows of the dataset card, copied exactly. The viewer truncates the 1152_B cells: raw_response
# after "long long n;\n", revised_code after "cin >> n".
CARD_1036_A_RAW = (
    'n, k = list(map(int, input().split(" ")))\n'
    "print(max(n, k) // min(n, k) if not max(n, k) % min(n, k) else max(n, k) // min(n, k) + 1)"
)
CARD_1036_A_REVISED = (
    'n, k = list(map(int, input().split(" ")))\n'
    "print(max(n, k) // min(n, k) if not max(n, k) % min(n, k) else max(n, k) // min(n, k) + 1)"
)
CARD_1152_B_RAW_PREFIX = "```cpp\n#include <bits/stdc++.h>\n\nusing namespace std;\n\nsigned main() {\n long long n;\n"
CARD_1152_B_REVISED_PREFIX = (
    "#include <bits/stdc++.h>\n\nusing namespace std;\n\nsigned main() {\n long long n;\n cin >> n"
)


def test_card_1036_a_unfenced_response_is_the_revision_byte_for_byte() -> None:
    result = extract(CARD_1036_A_RAW, "py3")
    assert result == Extraction(code=CARD_1036_A_REVISED, kind="bare", failure=None)
    assert not result.code.endswith("\n")  # pylint's missing-final-newline stays, as on the card


def test_card_1152_b_fenced_response_is_the_fence_content() -> None:
    content = CARD_1152_B_REVISED_PREFIX + ";\n cout << n << endl;\n}\n"  # completed by hand
    response = "```cpp\n" + content + "```"
    assert response.startswith(CARD_1152_B_RAW_PREFIX)
    result = extract(response, "cpp")
    assert result == Extraction(code=content, kind="fenced", failure=None)
    assert result.code.startswith(CARD_1152_B_REVISED_PREFIX)


def test_single_block_with_prose_around_it() -> None:
    response = f"Here is the revised program:\n\n```cpp\n{CPP}```\n\nI added braces and removed the macro."
    assert extract_code(response, "cpp") == CPP


def test_last_block_tagged_with_the_language_wins() -> None:
    response = (
        f"First draft:\n```cpp\nint main() {{}}\n```\n"
        f"Compile with:\n```bash\ng++ -O2 sol.cpp\n```\n"
        f"Final version:\n```c++\n{CPP}```\n"
        "Output:\n```\n42\n```\n"
    )
    assert extract_code(response, "cpp") == CPP


def test_untagged_block_is_used_when_none_is_tagged_with_the_language() -> None:
    response = f"```bash\npython3 sol.py < in.txt\n```\nThe code:\n```\n{PY}```\n"
    assert extract_code(response, "py3") == PY


def test_last_block_of_any_tag_is_the_fallback() -> None:
    response = f"```text\nnot it\n```\n```kotlin\n{JAVA}```"
    assert extract_code(response, "java") == JAVA


def test_unterminated_final_fence_runs_to_the_end_exactly_as_written() -> None:
    assert extract(f"Sure.\n```java\n{JAVA}", "java") == Extraction.found(JAVA, "fenced")
    assert extract_code("```python\nprint(2)", "py3") == "print(2)"
    assert extract_code("```python\nprint(2)\n\n  ", "py3") == "print(2)\n\n  "


def test_blank_lines_at_the_end_of_a_block_are_kept() -> None:
    assert extract_code("```python\nprint(2)\n\n\n```\nDone.", "py3") == "print(2)\n\n\n"
    assert extract_code("```python\nprint(2)\n```", "py3") == "print(2)\n"


def test_indentation_and_inner_blank_lines_are_kept() -> None:
    code = "    int x;\n\n\tint y;   \n"
    assert extract_code(f"```cpp\n{code}```\n", "cpp") == code


def test_code_inside_think_section_is_ignored() -> None:
    response = (
        "<think>\nMaybe:\n```python\nprint('draft')\n```\nNo, keep the ceiling division.\n</think>\n"
        f"```python\n{PY}```"
    )
    assert extract_code(response, "py3") == PY


def test_think_opened_in_the_prompt_only_closed_in_the_answer() -> None:
    response = f"draft ```python\nprint(1)\n``` hmm\n</think>\n\n```py\n{PY}```\n"
    assert extract_code(response, "py3") == PY


def test_think_that_never_closes_has_no_answer() -> None:
    response = f"<think>\nLet me try\n```cpp\n{CPP}```\nand then"
    assert extract(response, "cpp") == Extraction.failed(ExtractionFailure.UNCLOSED_THINK)
    assert extract_code(response, "cpp") is None


def test_bare_code_after_think_loses_only_its_leading_blank_lines() -> None:
    response = "<think>\nceil division\n</think>\n\n  \r\n" + PY + "\n"
    assert extract(response, "py3") == Extraction.found(PY + "\n", "bare")


def test_tilde_fences() -> None:
    response = f"~~~cpp\n{CPP}~~~\n"
    assert extract_code(response, "cpp") == CPP


def test_crlf_line_endings_are_kept() -> None:
    crlf = PY.replace("\n", "\r\n")
    assert extract_code(f"Revised:\r\n```python\r\n{crlf}```\r\n", "py3") == crlf
    assert extract(crlf, "py3") == Extraction.found(crlf, "bare")


def test_longer_fence_keeps_inner_triple_backticks() -> None:
    code = 'fence = "```"\nprint(fence)\n'
    response = f"````python\n{code}````\n"
    assert extract_code(response, "py3") == code


def test_closing_fence_must_be_as_long_as_the_opening() -> None:
    response = "````cpp\nint a;\n```\nint b;\n````\ntrailing prose"
    assert extract_code(response, "cpp") == "int a;\n```\nint b;\n"


def test_info_string_extras_and_case_are_tolerated() -> None:
    response = f"```Python title=sol.py\n{PY}```"
    assert extract_code(response, "py3") == PY


def test_indented_fence_inside_a_list_item() -> None:
    response = f"1. The fix:\n   ```cpp\n{CPP}   ```\n"
    assert extract_code(response, "cpp") == CPP


def test_empty_blocks_are_skipped() -> None:
    response = f"```cpp\n{CPP}```\nand an empty one:\n```cpp\n\n```\n"
    assert extract_code(response, "cpp") == CPP


def test_closing_fence_glued_to_the_last_line() -> None:
    response = "```python\nprint(1)```\nThen:\n```python\nx = 2\nprint(x)```"
    assert extract(response, "py3") == Extraction.found("x = 2\nprint(x)", "fenced")
    assert extract_code("```cpp\nint main() { return 0; }  ```\nDone.", "cpp") == "int main() { return 0; }"
    assert extract_code("```cpp\r\nint a;\r\n}```\r\n", "cpp") == "int a;\r\n}"


@pytest.mark.parametrize(
    ("response", "language"),
    [
        (CPP, "cpp"),
        ("\n" + JAVA + "\n\n", "java"),
        (PY, "py3"),
        ("import sys\nprint(sys.stdin.read())", "py3"),
        ("#include <cstdio>\r\nint main() { return 0; }\r\n", "cpp"),
        ("int main()\n{\n    return 0;\n}", "cpp"),
        ("// fixed: braces added.\nint main() { return 0; }\n", "cpp"),
        ("public:\n  int x;\n};\n", "cpp"),  # odd, but not prose: left to the compiler
        ("public class Main {\n    public static void main(String[] args) {}\n}", "java"),
        ("/** Entry point. */\nclass Main { public static void main(String[] a) { } }\n", "java"),
    ],
)
def test_bare_code_without_any_fence_is_taken_exactly_as_given(response: str, language: str) -> None:
    assert extract(response, language) == Extraction.found(response, "bare")


@pytest.mark.parametrize(
    "program",
    [
        '"""Ceiling division."""\nn, k = map(int, input().split())\nprint(-(-n // k))\n',
        "print(int(input()) * 2)",
        "try:\n    n = int(input())\nexcept ValueError:\n    n = 0\nprint(n)\n",
        "with open(0) as f:\n    print(f.read())\n",
        "x: int = 1\nprint(x)\n",
        "@staticmethod\ndef f():\n    return 1\n",
        "import asyncio\n\n\nasync def main():\n    await asyncio.sleep(0)\n\nasyncio.run(main())\n",
        "# read the input\nn = int(input())\n",
        'def main():\n    print(1)\n\n\nif __name__ == "__main__":\n    main()\n',
        "from math import gcd\nprint(gcd(4, 6))",
        "class A:\n    pass\n",
        "\n\nn = 1\n",
    ],
)
def test_unfenced_python_programs_are_accepted_as_bare(program: str) -> None:
    assert extract(program, "py3") == Extraction.found(program, "bare")


@pytest.mark.parametrize(
    "prose",
    [
        "I cannot help with that.",
        "Here is the fixed code: it uses braces now.",
        "Here is the revised code:",
        "Done",
        "Done.",
        "Yes, done",
        "42",
        '"""Only a docstring."""',
        "The program is already clean, nothing to change.",
        "Here is the revised program:\nIt keeps the same output; I only renamed {x}.",
    ],
)
@pytest.mark.parametrize("language", ["cpp", "py3", "java"])
def test_prose_is_no_code_block_in_every_language(prose: str, language: str) -> None:
    assert extract(prose, language) == Extraction.failed(ExtractionFailure.NO_CODE_BLOCK)


def test_cpp_java_prose_with_code_punctuation_is_left_to_the_compiler() -> None:
    # Conservative on purpose: the engine fails a bare revision that does not compile.
    prose = "The program is already clean; nothing to change."
    assert extract(prose, "cpp") == Extraction.found(prose, "bare")
    assert extract(prose, "py3").failure is ExtractionFailure.NO_CODE_BLOCK


@pytest.mark.parametrize(
    "response",
    [
        "x = the revised program keeps the same output",  # starts like code, does not parse
        "return 0",  # parses, but does not compile outside a function
        "Here is the code:\nprint(1)\n",
        "    print(1)\n",  # indented: not a runnable module
    ],
)
def test_python_that_does_not_compile_is_no_code_block(response: str) -> None:
    assert extract(response, "py3").failure is ExtractionFailure.NO_CODE_BLOCK


@pytest.mark.parametrize(
    "response", ["", "   \n\t\n", "```cpp\n\n```", "```cpp\n  \n```\n```\n```", "<think>plan</think>\n\n"]
)
def test_blank_answers_and_blank_blocks_are_empty(response: str) -> None:
    assert extract(response, "cpp") == Extraction.failed(ExtractionFailure.EMPTY)
    assert extract_code(response, "cpp") is None


def test_extraction_holds_either_code_or_a_failure() -> None:
    with pytest.raises(ValueError):
        Extraction(code="x", kind=None, failure=None)
    with pytest.raises(ValueError):
        Extraction(code="x", kind="bare", failure=ExtractionFailure.EMPTY)
    with pytest.raises(ValueError):
        Extraction(code=None, kind=None, failure=None)
    assert ExtractionFailure.NO_CODE_BLOCK == "no_code_block"
