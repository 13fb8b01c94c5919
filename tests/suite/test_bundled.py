"""The suite's bundled data is what data/suite/build.py makes of data/suite/ and data/codecontests_o/ now."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_bundled_tests_and_pools_are_built_from_their_sources() -> None:
    check = subprocess.run([sys.executable, str(ROOT / "data" / "suite" / "build.py"), "--check"],
                           capture_output=True, text=True, timeout=600, check=False)
    assert check.returncode == 0, f"stale (run data/suite/build.py): {check.stderr}"
