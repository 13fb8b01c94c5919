from __future__ import annotations

from pathlib import Path

from linteval_ray.toolchain import Toolchain, install, pins
from linteval_ray.toolchain.install import install_testlib
from linteval_ray.toolchain.manifest import sha256_file


def test_install_is_idempotent_on_an_installed_prefix(toolchain: Toolchain) -> None:
    steps = install(toolchain.prefix)
    assert {s.name: s.outcome for s in steps} == {
        "debian": "present", "pmd": "present", "testlib": "present", "python-tools": "present",
    }


def test_testlib_is_downloaded_and_verified(tmp_path: Path) -> None:
    step = install_testlib(tmp_path)  # real `pip download` from PyPI
    assert step.outcome == "installed", step.detail
    assert sha256_file(tmp_path / "include" / "testlib.h") == pins.TESTLIB_SHA256
    assert install_testlib(tmp_path).outcome == "present"
