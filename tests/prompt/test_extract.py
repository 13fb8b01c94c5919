from __future__ import annotations

import pytest

from linteval_ray.prompt.extract import extract_code

CPP = '#include <cstdio>\n\nint main() {\n    std::printf("%d\\n", 42);\n    return 0;\n}\n'
PY = "n, k = map(int, input().split())\nprint(-(-n // k))\n"
JAVA = "import java.util.Scanner;\n\npublic class Main {\n    public static void main(String[] a) {}\n}\n"


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


def test_unterminated_final_fence_runs_to_the_end() -> None:
    response = f"Sure.\n```java\n{JAVA}"
    assert extract_code(response, "java") == JAVA


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
    assert extract_code(response, "cpp") is None


def test_tilde_fences() -> None:
    response = f"~~~cpp\n{CPP}~~~\n"
    assert extract_code(response, "cpp") == CPP


def test_crlf_line_endings_are_normalised() -> None:
    response = f"Revised:\r\n```python\r\n{PY.replace(chr(10), chr(13) + chr(10))}```\r\n"
    assert extract_code(response, "py3") == PY


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
    assert extract_code(response, "py3") == "x = 2\nprint(x)\n"
    assert extract_code("```cpp\nint main() { return 0; }```\nDone.", "cpp") == "int main() { return 0; }\n"


def test_missing_final_newline_is_added() -> None:
    assert extract_code("```python\nprint(2)\n```", "py3") == "print(2)\n"
    assert extract_code("```python\nprint(2)", "py3") == "print(2)\n"


@pytest.mark.parametrize(
    ("response", "language", "expected"),
    [
        (CPP, "cpp", CPP),
        ("\n" + JAVA + "\n\n", "java", JAVA),
        (PY, "py3", PY),
        ("import sys\nprint(sys.stdin.read())", "py3", "import sys\nprint(sys.stdin.read())\n"),
    ],
)
def test_bare_code_without_any_fence_is_accepted(response: str, language: str, expected: str) -> None:
    assert extract_code(response, language) == expected


@pytest.mark.parametrize(
    ("response", "language"),
    [
        ("I cannot help with that.", "cpp"),
        ("Here is the fixed code: it uses braces now.", "java"),
        ("Done", "py3"),
        ("x = the revised program keeps the same output", "py3"),  # starts like code, does not parse
        ("", "cpp"),
        ("```cpp\n\n```", "cpp"),
    ],
)
def test_prose_or_nothing_is_an_extraction_failure(response: str, language: str) -> None:
    assert extract_code(response, language) is None
