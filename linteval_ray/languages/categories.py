"""The paper's five alert categories (error-prone, performance, refactor, style, other).

A message's ``category`` is its tool's check family (clang-tidy check prefix, pylint message
type as a family, PMD ruleset). The paper reports five categories; each language rolls its
tool's families up into them (``LanguageSpec.alert_families``, its package's
``categories.py``, where each table says why). A family its table does not know is 'other'
(compiler diagnostics, pylint's informational and fatal messages, anything new).
"""

from __future__ import annotations

from collections.abc import Mapping

PAPER_CATEGORIES = ("error-prone", "performance", "refactor", "style", "other")
OTHER = "other"


def paper_category(families: Mapping[str, str], family: str) -> str:
    """The paper's category of a check family, by a language's table; unknown families are 'other'."""
    return families.get(family, OTHER)
