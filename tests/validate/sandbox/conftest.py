"""Sandboxes for these tests: real bubblewrap, skipped (with the reason) only if unusable here."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from linteval_ray.validate.sandbox import BwrapSandbox, SandboxError, make_sandbox


@pytest.fixture(scope="module")
def sandbox() -> Iterator[BwrapSandbox]:
    try:
        sb = make_sandbox("bwrap")
    except SandboxError as exc:
        pytest.skip(f"bubblewrap is unusable here: {exc}")
    assert isinstance(sb, BwrapSandbox)
    yield sb
    sb.close()


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    box = tmp_path / "box"
    box.mkdir()
    return box
