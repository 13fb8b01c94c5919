"""PMD's rulesets as check families, and the paper's categories they count in.

| family                               | paper category | why                          |
|--------------------------------------|----------------|------------------------------|
| errorprone, multithreading, security | error-prone    | likely bugs / unsafe code    |
| performance                          | performance    |                              |
| design, bestpractices                | refactor       | structure, not layout        |
| codestyle, documentation             | style          |                              |
| other, anything unknown              | other          |                              |
"""

from __future__ import annotations

FAMILY_TO_PAPER: dict[str, str] = {
    "errorprone": "error-prone",
    "multithreading": "error-prone",
    "security": "error-prone",
    "performance": "performance",
    "design": "refactor",
    "bestpractices": "refactor",
    "codestyle": "style",
    "documentation": "style",
    "other": "other",
}


def pmd_family(ruleset: str) -> str:
    """PMD's ruleset name ('Best Practices') -> 'bestpractices', as in its category file names."""
    return "".join(ruleset.lower().split()) or "other"
