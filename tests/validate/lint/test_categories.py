from __future__ import annotations

import pytest

from linteval_ray.languages import language, languages
from linteval_ray.languages.categories import PAPER_CATEGORIES
from linteval_ray.languages.cpp.categories import clang_tidy_family
from linteval_ray.languages.java.categories import pmd_family
from linteval_ray.languages.py3.categories import pylint_family


@pytest.mark.parametrize("name", [spec.name for spec in languages()])
def test_every_family_of_a_language_maps_to_a_paper_category(name: str) -> None:
    assert set(language(name).alert_families.values()) <= set(PAPER_CATEGORIES)


def test_families_of_each_tool() -> None:
    assert clang_tidy_family("modernize-use-nullptr") == "modernize"
    assert clang_tidy_family("clang-diagnostic-sign-compare") == "other"
    assert clang_tidy_family("cert-err58-cpp") == "cert"
    assert pylint_family("convention") == "readability"
    assert pylint_family("warning") == "bugprone"
    assert pmd_family("Best Practices") == "bestpractices"


def test_paper_categories_by_each_languages_table() -> None:
    cpp, py3, java = language("cpp"), language("py3"), language("java")
    assert cpp.paper_category("bugprone") == py3.paper_category("bugprone") == "error-prone"
    assert java.paper_category("errorprone") == "error-prone"
    assert cpp.paper_category("modernize") == "refactor"
    assert cpp.paper_category("readability") == py3.paper_category("readability") == "style"
    assert java.paper_category("codestyle") == "style"
    assert cpp.paper_category("performance") == java.paper_category("performance") == "performance"
    assert cpp.paper_category("no-such-family") == "other"
