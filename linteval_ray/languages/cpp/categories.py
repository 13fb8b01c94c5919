"""clang-tidy's check families and the paper's categories they count in.

| family                         | paper category | why                                      |
|--------------------------------|----------------|------------------------------------------|
| bugprone, cert, clang-analyzer | error-prone    | likely bugs                              |
| performance                    | performance    |                                          |
| modernize                      | refactor       | rewrite to a newer idiom, same behaviour |
| readability                    | style          |                                          |
| misc, other, anything unknown  | other          | incl. clang-diagnostic-*                 |
"""

from __future__ import annotations

FAMILY_TO_PAPER: dict[str, str] = {
    "bugprone": "error-prone",
    "cert": "error-prone",
    "clang-analyzer": "error-prone",
    "performance": "performance",
    "modernize": "refactor",
    "readability": "style",
    "misc": "other",
    "other": "other",
}


def clang_tidy_family(check_name: str) -> str:
    """'modernize-use-nullptr' -> 'modernize'; compiler diagnostics (clang-diagnostic-*) -> 'other'."""
    if check_name.startswith("clang-diagnostic-"):
        return "other"
    if check_name.startswith("clang-analyzer-"):
        return "clang-analyzer"
    return check_name.split("-", 1)[0] or "other"
