"""Sandboxes for these tests: real bubblewrap, skipped (with the reason) only if unusable here."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from linteval_ray.validate.sandbox import BwrapSandbox, SandboxError, make_sandbox


@pytest.fixture(scope="module", params=["server", "bwrap"])
def sandbox(request: pytest.FixtureRequest) -> Iterator[BwrapSandbox]:
    """Each test on both box builders: the box server (as root) and bubblewrap, the same world."""
    try:
        sb = make_sandbox("bwrap")
    except SandboxError as exc:
        pytest.skip(f"bubblewrap is unusable here: {exc}")
    assert isinstance(sb, BwrapSandbox)
    if request.param == "bwrap":
        view = sb.reference()
    elif sb.builder != "server":
        sb.close()
        pytest.skip("the box server needs root")
    else:
        view = sb
    assert view.builder == request.param
    yield view
    sb.close()


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    box = tmp_path / "box"
    box.mkdir()
    return box
