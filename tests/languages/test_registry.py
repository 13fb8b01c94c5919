"""The registry: every language by name, in the dataset's order, agreeing with the schema."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest
from pydantic import ValidationError

from linteval_ray.errors import LintEvalError
from linteval_ray.languages import (
    LanguageSpec,
    UnknownLanguageError,
    language,
    language_names,
    languages,
    register_language,
    registry,
)
from linteval_ray.prompt.extract import extract
from linteval_ray.schema.record import LintEvalRecord
from tests.languages.toy import TOY
from tests.schema.test_schema import RECORD

LANGUAGES = ("cpp", "py3", "java")


@pytest.fixture
def with_toy(monkeypatch: pytest.MonkeyPatch) -> Iterator[LanguageSpec]:
    """The toy language registered for one test only."""
    monkeypatch.setattr(registry, "_SPECS", dict(registry._SPECS))
    yield register_language(TOY)


def test_languages_come_in_the_datasets_order() -> None:
    assert tuple(spec.name for spec in languages()) == language_names() == LANGUAGES


@pytest.mark.parametrize("name", LANGUAGES)
def test_each_language_is_found_by_its_name(name: str) -> None:
    assert language(name).name == name
    assert language(name) is language(name)


@pytest.mark.parametrize("name", LANGUAGES)
def test_each_language_package_holds_its_profiles_files_and_tools(name: str) -> None:
    spec = language(name)
    assert spec.linter.tool == spec.linter_tool
    assert {p.name for p in spec.profiles_dir.iterdir()} == {"broad", "linteval"}
    assert all((spec.profiles_dir / profile / spec.lint_config).is_file() for profile in ("broad", "linteval"))
    assert spec.tools and all(row.name for row in spec.tools)


def test_an_unknown_language_is_a_clear_error() -> None:
    with pytest.raises(UnknownLanguageError, match=r"unknown language 'rust': expected one of cpp, java, py3"):
        language("rust")
    assert issubclass(UnknownLanguageError, LintEvalError) and issubclass(UnknownLanguageError, ValueError)


def test_a_second_spec_under_a_taken_name_is_refused(with_toy: LanguageSpec) -> None:
    assert register_language(with_toy) is with_toy  # the same spec again (a re-import) is harmless
    with pytest.raises(ValueError, match="'toy' is registered twice"):
        register_language(dataclasses.replace(TOY, display_name="Toy 2"))


def test_a_registered_language_is_known_to_modules_that_ask_the_registry(with_toy: LanguageSpec) -> None:
    assert language("toy") is with_toy and languages()[-1] is with_toy
    answer = "```cpp\nnot this\n```\n```toy\nthis\n```\n```python\nnor this\n```\n"
    assert extract(answer, "toy").code == "this\n"


def test_the_schema_accepts_a_registered_languages_records_only(with_toy: LanguageSpec) -> None:
    row = RECORD
    assert LintEvalRecord.model_validate({**row, "language": "toy"}).language == "toy"
    with pytest.raises(ValidationError, match="Input should be 'cpp', 'py3', 'java' or 'toy'"):
        LintEvalRecord.model_validate({**row, "language": "rust"})
