"""pylint's message types as check families, and the paper's categories they count in.

| message type       | family      | paper category | why                                        |
|--------------------|-------------|----------------|--------------------------------------------|
| convention         | readability | style          | the dataset shows missing-final-newline so |
| refactor           | refactor    | refactor       | pylint R messages                          |
| warning, error     | bugprone    | error-prone    | likely bugs                                |
| fatal, info        | other       | other          | the tool's own trouble, not the code's     |
"""

from __future__ import annotations

PYLINT_TYPE_FAMILY = {
    "convention": "readability",
    "refactor": "refactor",
    "warning": "bugprone",
    "error": "bugprone",
    "fatal": "other",
    "info": "other",
}

FAMILY_TO_PAPER: dict[str, str] = {
    "bugprone": "error-prone",
    "refactor": "refactor",
    "readability": "style",
    "other": "other",
}


def pylint_family(message_type: str) -> str:
    return PYLINT_TYPE_FAMILY.get(message_type, "other")
