"""``install(prefix)``: put the pinned tools in place; idempotent, each step skips what is present.

Root is needed only for the Debian packages; without it the apt command is
reported instead of run.
"""

from __future__ import annotations

import importlib.metadata
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from linteval_ray.toolchain import pins
from linteval_ray.toolchain.discover import locate, pmd_home_of, testlib_dir_of
from linteval_ray.toolchain.manifest import sha256_file

log = logging.getLogger(__name__)

INSTALL_TIMEOUT_S = 900.0


class InstallStep(BaseModel):
    name: str
    outcome: Literal["present", "installed", "manual", "failed"]
    detail: str = ""


def install(prefix: Path) -> list[InstallStep]:
    """Install everything under ``prefix``; never raises for a failed step (see ``outcome``)."""
    prefix.mkdir(parents=True, exist_ok=True)
    return [install_debian_packages(prefix), install_pmd(prefix), install_testlib(prefix), check_python_tools()]


def _run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    log.info("running %s", " ".join(argv))
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    return subprocess.run(argv, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S, check=False, env=env)


def install_debian_packages(prefix: Path) -> InstallStep:
    found = locate(prefix)
    tools = {"gxx": "g++", "java": "java", "javac": "javac", "bwrap": "bwrap"}
    packages = sorted({pins.APT_PACKAGES[name] for tool, name in tools.items() if found[tool] is None})
    if not packages:
        return InstallStep(name="debian", outcome="present", detail="g++, java, javac, bwrap found")
    command = ["apt-get", "install", "-y", "--no-install-recommends", *packages]
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        return InstallStep(name="debian", outcome="manual", detail="run as root: " + " ".join(command))
    _run(["apt-get", "update"])
    proc = _run(command)
    if proc.returncode != 0:
        return InstallStep(name="debian", outcome="failed", detail=proc.stderr.strip()[-500:])
    return InstallStep(name="debian", outcome="installed", detail=" ".join(packages))


def installed_pmd_npm_version(prefix: Path) -> str | None:
    package_json = prefix / "node_modules" / pins.PMD_NPM_PACKAGE / "package.json"
    if not package_json.is_file() or not (pmd_home_of(prefix) / "lib").is_dir():
        return None
    return json.loads(package_json.read_text()).get("version")


def install_pmd(prefix: Path) -> InstallStep:
    if installed_pmd_npm_version(prefix) == pins.PMD_NPM_VERSION:
        return InstallStep(name="pmd", outcome="present", detail=str(pmd_home_of(prefix)))
    npm = shutil.which("npm")
    if npm is None:
        return InstallStep(name="pmd", outcome="failed", detail="npm not found: apt-get install -y npm")
    # --ignore-scripts: the package's install script downloads a JRE, which we do not want (nor can offline)
    spec = f"{pins.PMD_NPM_PACKAGE}@{pins.PMD_NPM_VERSION}"
    proc = _run([npm, "install", "--ignore-scripts", "--no-audit", "--no-fund", "--prefix", str(prefix), spec])
    if proc.returncode != 0 or installed_pmd_npm_version(prefix) != pins.PMD_NPM_VERSION:
        return InstallStep(name="pmd", outcome="failed", detail=proc.stderr.strip()[-500:])
    return InstallStep(name="pmd", outcome="installed", detail=str(pmd_home_of(prefix)))


def install_testlib(prefix: Path) -> InstallStep:
    target = testlib_dir_of(prefix) / "testlib.h"
    if target.is_file() and sha256_file(target) == pins.TESTLIB_SHA256:
        return InstallStep(name="testlib", outcome="present", detail=str(target))
    with tempfile.TemporaryDirectory(prefix="linteval-testlib-") as tmp:
        proc = _run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                     "--dest", tmp, pins.TESTLIB_WHEEL])
        wheels = list(Path(tmp).glob("*.whl"))
        if proc.returncode != 0 or not wheels:
            return InstallStep(name="testlib", outcome="failed", detail=proc.stderr.strip()[-500:])
        with zipfile.ZipFile(wheels[0]) as wheel:
            data = wheel.read(pins.TESTLIB_MEMBER)
    staged = target.with_suffix(".h.part")
    target.parent.mkdir(parents=True, exist_ok=True)
    staged.write_bytes(data)
    if sha256_file(staged) != pins.TESTLIB_SHA256:
        staged.unlink()
        return InstallStep(name="testlib", outcome="failed", detail="testlib.h sha256 does not match the pin")
    os.replace(staged, target)
    return InstallStep(name="testlib", outcome="installed", detail=str(target))


def check_python_tools() -> InstallStep:
    """pylint and the clang-tidy wheel come from pyproject's pins; only check them here."""
    wanted = {"pylint": pins.PYLINT_VERSION, "clang-tidy": pins.CLANG_TIDY_VERSION}
    wrong = []
    for name, version in wanted.items():
        try:
            have = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            have = None
        if have != version:
            wrong.append((name, version, have))
    if not wrong:
        return InstallStep(name="python-tools", outcome="present", detail="pylint, clang-tidy at pinned versions")
    pip = f"{sys.executable} -m pip install " + " ".join(f"{name}=={version}" for name, version, _ in wrong)
    have = ", ".join(f"{name} {got or 'missing'}" for name, _, got in wrong)
    return InstallStep(name="python-tools", outcome="manual", detail=f"{have}; run: {pip}")
