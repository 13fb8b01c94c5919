from __future__ import annotations

import json
from pathlib import Path

import pytest

from linteval_ray.prompt.template import PromptError, build_messages, load_template
from linteval_ray.schema.record import LintEvalRecord, LintMessage

BUNDLED = Path(__file__).resolve().parents[2] / "linteval_ray" / "load" / "bundled" / "linteval_bundled.jsonl"


def bundled_record(language: str) -> LintEvalRecord:
    for line in BUNDLED.read_text().splitlines():
        record = LintEvalRecord.model_validate_json(line)
        if record.language == language:
            return record
    raise AssertionError(f"no {language} record in {BUNDLED}")


def alert(line: int, check: str, text: str, tool: str = "clang-tidy", column: int = 1) -> LintMessage:
    return LintMessage(tool=tool, line=line, column=column, check_name=check, message_text=text)


def test_user_message_carries_program_alerts_and_answer_format() -> None:
    record = bundled_record("cpp").model_copy(
        update={
            "linter_messages": [
                alert(9, "readability-braces-around-statements", "statement should be inside braces"),
                alert(2, "cppcoreguidelines-macro-usage", "macro 'll'\n  used to declare a constant", column=9),
            ]
        }
    )
    system, user = build_messages(record, "v1")
    assert system["role"] == "system" and "C++" in system["content"]
    assert user["role"] == "user"
    text = user["content"]
    assert f"```cpp\n{record.code.rstrip()}\n```" in text
    # Alerts sorted by line, message whitespace folded onto one line.
    first = text.index("- line 2:9 [clang-tidy cppcoreguidelines-macro-usage] "
                       "macro 'll' used to declare a constant")
    second = text.index("- line 9:1 [clang-tidy readability-braces-around-statements] "
                        "statement should be inside braces")
    assert first < second
    assert "clang-tidy reports 2 alert(s)" in text
    assert "one fenced code block" in text


def test_each_language_gets_its_fence_tag_and_linter() -> None:
    expectations = {"cpp": ("```cpp", "clang-tidy"), "py3": ("```python", "pylint"), "java": ("```java", "PMD")}
    tools = {"cpp": "clang-tidy", "py3": "pylint", "java": "pmd"}
    for language, (fence, linter) in expectations.items():
        record = bundled_record(language)
        # With alerts the linter is named after them; without, after the language.
        some_alert = alert(1, "some-check", "text", tool=tools[language])
        with_alerts = record.model_copy(update={"linter_messages": [some_alert]})
        assert f"{linter} reports 1 alert(s)" in build_messages(with_alerts, "v1")[1]["content"]
        user = build_messages(record.model_copy(update={"linter_messages": []}), "v1")[1]["content"]
        assert f"{fence}\n{record.code.rstrip()}" in user
        assert f"{linter} reports" in user


def test_program_text_is_verbatim_even_with_template_syntax_and_backticks() -> None:
    code = 'print("${code} $$ {x} %s")\ns = "```"\n'
    record = bundled_record("py3").model_copy(update={"code": code})
    user = build_messages(record, "v1")[1]["content"]
    assert code.rstrip() in user
    # A fence longer than the backtick run in the program keeps the block intact.
    assert f"````python\n{code.rstrip()}\n````" in user


def test_explicit_alerts_replace_the_records_own() -> None:
    record = bundled_record("py3").model_copy(update={"linter_messages": []})
    assert "(none)" in build_messages(record, "v1")[1]["content"]
    fresh = [alert(1, "missing-module-docstring", "Missing module docstring", tool="pylint")]
    user = build_messages(record, "v1", alerts=fresh)[1]["content"]
    assert "[pylint missing-module-docstring] Missing module docstring" in user
    assert "pylint reports 1 alert(s)" in user


def test_version_id_names_the_version_and_pins_the_file_content(tmp_path: Path) -> None:
    v1 = load_template("v1")
    assert v1.version == "v1"
    assert v1.version_id.startswith("v1@") and len(v1.version_id) == len("v1@") + 8
    edited = tmp_path / "v1-edited.yaml"
    shipped = Path(__file__).resolve().parents[2].joinpath("linteval_ray/prompt/prompts/v1.yaml")
    edited.write_text(shipped.read_text() + "\n# edit\n")
    assert load_template(str(edited)).version_id != v1.version_id


def test_missing_or_malformed_templates_are_named(tmp_path: Path) -> None:
    with pytest.raises(PromptError, match="no-such-version"):
        load_template("no-such-version")
    bad = tmp_path / "bad.yaml"
    bad.write_text(json.dumps({"version": "x", "system": "s"}))
    with pytest.raises(PromptError, match=r"bad\.yaml"):
        load_template(str(bad))
    unknown = tmp_path / "unknown.yaml"
    unknown.write_text(json.dumps({"version": "x", "system": "s", "user": "${nope}"}))
    with pytest.raises(PromptError, match="nope"):
        build_messages(bundled_record("cpp"), str(unknown))
