"""Check families -> the paper's five alert categories (error-prone, performance, refactor, style, other).

A message's ``category`` is its tool's family (clang-tidy check prefix, pylint
message type as a family, PMD ruleset). The paper reports five categories; this
table is the one place that rolls families up into them:

| family                                   | paper category | why                                      |
|------------------------------------------|----------------|------------------------------------------|
| bugprone, cert, clang-analyzer           | error-prone    | likely bugs                              |
| errorprone, multithreading, security     | error-prone    | PMD: likely bugs / unsafe code           |
| performance                              | performance    | clang-tidy and PMD                       |
| modernize                                | refactor       | rewrite to a newer idiom, same behaviour |
| refactor                                 | refactor       | pylint R messages                        |
| design, bestpractices                    | refactor       | PMD: structure, not layout               |
| readability                              | style          | clang-tidy readability, pylint C         |
| codestyle, documentation                 | style          | PMD                                      |
| other, misc, anything unknown            | other          | incl. clang-diagnostic-* and pylint I/F  |
"""

from __future__ import annotations

PAPER_CATEGORIES = ("error-prone", "performance", "refactor", "style", "other")

FAMILY_TO_PAPER: dict[str, str] = {
    "bugprone": "error-prone",
    "cert": "error-prone",
    "clang-analyzer": "error-prone",
    "errorprone": "error-prone",
    "multithreading": "error-prone",
    "security": "error-prone",
    "performance": "performance",
    "modernize": "refactor",
    "refactor": "refactor",
    "design": "refactor",
    "bestpractices": "refactor",
    "readability": "style",
    "codestyle": "style",
    "documentation": "style",
    "misc": "other",
    "other": "other",
}

# pylint message type -> family (the dataset shows missing-final-newline, a convention, as readability)
PYLINT_TYPE_FAMILY = {
    "convention": "readability",
    "refactor": "refactor",
    "warning": "bugprone",
    "error": "bugprone",
    "fatal": "other",
    "info": "other",
}


def paper_category(family: str) -> str:
    """The paper's category for a check family; unknown families are 'other'."""
    return FAMILY_TO_PAPER.get(family, "other")


def clang_tidy_family(check_name: str) -> str:
    """'modernize-use-nullptr' -> 'modernize'; compiler diagnostics (clang-diagnostic-*) -> 'other'."""
    if check_name.startswith("clang-diagnostic-"):
        return "other"
    if check_name.startswith("clang-analyzer-"):
        return "clang-analyzer"
    return check_name.split("-", 1)[0] or "other"


def pylint_family(message_type: str) -> str:
    return PYLINT_TYPE_FAMILY.get(message_type, "other")


def pmd_family(ruleset: str) -> str:
    """PMD's ruleset name ('Best Practices') -> 'bestpractices', as in its category file names."""
    return "".join(ruleset.lower().split()) or "other"
