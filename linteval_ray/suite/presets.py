"""The suite's named inputs: ``suite:bundled`` for tests and pools (``data/suite/README.md``).

The bundled tests are the bundled CodeContests-O split (``codecontests-o:bundled``) and the suite's own
problems with known defects (a test whose expected answer is wrong, a checker that rejects a valid
answer, tests too weak to catch an incorrect solution); the bundled pools hold correct and incorrect
solutions of every language for them, as deepmind/code_contests rows and as flat rows.
"""

from __future__ import annotations

from pathlib import Path

BUNDLED = Path(__file__).with_name("bundled")
PRESET = "suite:bundled"
BUNDLED_TESTS = ("codecontests-o:bundled", str(BUNDLED / "tests" / "defects-*.parquet"))
BUNDLED_POOLS = (str(BUNDLED / "pools" / "deepmind-*.parquet"), str(BUNDLED / "pools" / "flat.jsonl"))


def expanded(names: list[str], bundled: tuple[str, ...]) -> list[str]:
    """``names`` with the preset replaced by what it names (each once, in order)."""
    out: list[str] = []
    for name in names:
        for url in bundled if name == PRESET else (name,):
            if url not in out:
                out.append(url)
    return out
