from __future__ import annotations

from linteval_ray.validate.lint import PAPER_CATEGORIES, paper_category
from linteval_ray.validate.lint.categories import FAMILY_TO_PAPER, clang_tidy_family, pmd_family, pylint_family


def test_every_family_maps_to_a_paper_category() -> None:
    assert set(FAMILY_TO_PAPER.values()) == set(PAPER_CATEGORIES)


def test_families_of_each_tool() -> None:
    assert clang_tidy_family("modernize-use-nullptr") == "modernize"
    assert clang_tidy_family("clang-diagnostic-sign-compare") == "other"
    assert clang_tidy_family("cert-err58-cpp") == "cert"
    assert pylint_family("convention") == "readability"
    assert pylint_family("warning") == "bugprone"
    assert pmd_family("Best Practices") == "bestpractices"


def test_paper_categories() -> None:
    assert paper_category("bugprone") == "error-prone"
    assert paper_category("errorprone") == "error-prone"
    assert paper_category("modernize") == "refactor"
    assert paper_category("readability") == "style"
    assert paper_category("codestyle") == "style"
    assert paper_category("performance") == "performance"
    assert paper_category("no-such-family") == "other"
