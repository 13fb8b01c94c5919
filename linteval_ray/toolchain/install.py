"""``install(prefix)``: put the pinned tools in place; idempotent, each step skips what is present.

The steps follow the table's recipes: one ``debian`` step for every apt package,
one step per prefix recipe (npm, wheel member, files of pinned .debs) named after its tool, and one
``python-tools`` step that only checks the pip pins (pyproject installs them).
Root is needed only for the Debian packages; without it the apt command is
reported instead of run.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import io
import json
import logging
import os
import platform
import shutil
import subprocess
import tarfile
import tempfile
import urllib.request
import zipfile
from pathlib import Path
from typing import Literal, TypeVar

from pydantic import BaseModel

from linteval_ray.toolchain.probe import sha256_file
from linteval_ray.toolchain.recipes import (
    AptPackage,
    DebFile,
    DebianArchive,
    NpmPackage,
    PipPackage,
    Recipe,
    WheelMember,
    apt_install_argv,
    pip_argv,
)
from linteval_ray.toolchain.spec import ToolSpec
from linteval_ray.toolchain.tools import tools

log = logging.getLogger(__name__)

INSTALL_TIMEOUT_S = 900.0
RecipeKind = TypeVar("RecipeKind", bound=Recipe)


class InstallStep(BaseModel):
    name: str
    outcome: Literal["present", "installed", "manual", "failed"]
    detail: str = ""


def install(prefix: Path) -> list[InstallStep]:
    """Install everything under ``prefix``; never raises for a failed step (see ``outcome``)."""
    prefix.mkdir(parents=True, exist_ok=True)
    steps = [install_debian_packages(prefix)]  # first: the prefix steps may need what apt brings
    steps += [install_into_prefix(spec, prefix) for spec in tools()
              if isinstance(spec.install, NpmPackage | WheelMember | DebianArchive)]
    steps.append(check_python_tools())
    return steps


def recipes_of(kind: type[RecipeKind]) -> list[tuple[ToolSpec, RecipeKind]]:
    """The tools installed by recipes of one kind, with their recipe (typed as that kind)."""
    return [(spec, spec.install) for spec in tools() if isinstance(spec.install, kind)]


def install_into_prefix(spec: ToolSpec, prefix: Path) -> InstallStep:
    """The step of one tool whose recipe puts it under the prefix (npm package, wheel member)."""
    if isinstance(spec.install, NpmPackage):
        return install_npm_package(spec, spec.install, prefix)
    if isinstance(spec.install, WheelMember):
        return install_wheel_member(spec.name, spec.install, prefix)
    if isinstance(spec.install, DebianArchive):
        return install_debian_archive(spec, spec.install, prefix)
    raise ValueError(f"{spec.name}: a {type(spec.install).__name__} is installed by a batch step")


def _run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    log.info("running %s", " ".join(argv))
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    return subprocess.run(argv, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S, check=False, env=env)


def install_debian_packages(prefix: Path) -> InstallStep:
    apt_tools = recipes_of(AptPackage)
    packages = sorted({recipe.package for spec, recipe in apt_tools if spec.locate.find(prefix) is None})
    if not packages:
        found = ", ".join(spec.name for spec, _ in apt_tools)
        return InstallStep(name="debian", outcome="present", detail=f"{found} found")
    command = apt_install_argv(packages)
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        return InstallStep(name="debian", outcome="manual", detail="run as root: " + " ".join(command))
    _run(["apt-get", "update"])
    proc = _run(command)
    if proc.returncode != 0:
        return InstallStep(name="debian", outcome="failed", detail=proc.stderr.strip()[-500:])
    return InstallStep(name="debian", outcome="installed", detail=" ".join(packages))


def installed_npm_version(spec: ToolSpec, recipe: NpmPackage, prefix: Path) -> str | None:
    """The npm package's version, when the tool is also where its spec locates it."""
    package_json = recipe.package_dir(prefix) / "package.json"
    if not package_json.is_file() or spec.locate.find(prefix) is None:
        return None
    version = json.loads(package_json.read_text()).get("version")
    return version if isinstance(version, str) else None


def install_npm_package(spec: ToolSpec, recipe: NpmPackage, prefix: Path) -> InstallStep:
    if installed_npm_version(spec, recipe, prefix) == recipe.version:
        return InstallStep(name=spec.name, outcome="present", detail=str(spec.locate.find(prefix)))
    npm = shutil.which("npm")
    if npm is None:
        return InstallStep(name=spec.name, outcome="failed",
                           detail="npm not found: " + " ".join(apt_install_argv(["npm"])))
    proc = _run(recipe.npm_argv(prefix, npm))
    if proc.returncode != 0 or installed_npm_version(spec, recipe, prefix) != recipe.version:
        return InstallStep(name=spec.name, outcome="failed", detail=proc.stderr.strip()[-500:])
    return InstallStep(name=spec.name, outcome="installed", detail=str(spec.locate.find(prefix)))


def install_wheel_member(name: str, recipe: WheelMember, prefix: Path) -> InstallStep:
    target = prefix / recipe.target
    if target.is_file() and sha256_file(target) == recipe.sha256:
        return InstallStep(name=name, outcome="present", detail=str(target))
    with tempfile.TemporaryDirectory(prefix=f"linteval-{name}-") as tmp:
        proc = _run(recipe.pip_download_argv(Path(tmp)))
        wheels = list(Path(tmp).glob("*.whl"))
        if proc.returncode != 0 or not wheels:
            return InstallStep(name=name, outcome="failed", detail=proc.stderr.strip()[-500:])
        with zipfile.ZipFile(wheels[0]) as wheel:
            data = wheel.read(recipe.member)
    # Staged then renamed, so a reader never sees a partial file under the final name.
    staged = target.with_name(target.name + ".part")
    target.parent.mkdir(parents=True, exist_ok=True)
    staged.write_bytes(data)
    if sha256_file(staged) != recipe.sha256:
        staged.unlink()
        return InstallStep(name=name, outcome="failed", detail=f"{target.name} sha256 does not match the pin")
    os.replace(staged, target)
    return InstallStep(name=name, outcome="installed", detail=str(target))


def install_debian_archive(spec: ToolSpec, recipe: DebianArchive, prefix: Path) -> InstallStep:
    """Download the pinned .debs (hash-checked), unpack their files into ``<prefix>/<target>`` (staged,
    then renamed into place); ``manual`` on a machine the packages were not pinned for."""
    if spec.locate.find(prefix) is not None:
        return InstallStep(name=spec.name, outcome="present", detail=str(spec.locate.find(prefix)))
    if platform.machine() != recipe.machine:
        return InstallStep(name=spec.name, outcome="manual", detail=f"pinned for {recipe.machine} only, this machine "
                           f"is {platform.machine()}: install {spec.name} yourself at {prefix / recipe.target}")
    target = prefix / recipe.target
    with tempfile.TemporaryDirectory(prefix=f".{recipe.target}-", dir=prefix) as tmp:
        staged = Path(tmp) / "root"
        for deb in recipe.debs:
            data = _download_deb(recipe, deb)
            if data is None:
                return InstallStep(name=spec.name, outcome="failed",
                                   detail=f"{deb.pool_path}: no mirror served it with the pinned sha256")
            unpack_deb(data, staged)
        shutil.rmtree(target, ignore_errors=True)
        os.replace(staged, target)
    found = spec.locate.find(prefix)
    if found is None:
        return InstallStep(name=spec.name, outcome="failed", detail=f"unpacked into {target}, but {spec.name} is not "
                           "where its row locates it")
    return InstallStep(name=spec.name, outcome="installed", detail=found)


def _download_deb(recipe: DebianArchive, deb: DebFile) -> bytes | None:
    """The .deb from the first mirror that serves it with its pinned hash."""
    for mirror in recipe.mirrors:
        url = f"{mirror}/{deb.pool_path}"
        log.info("downloading %s", url)
        try:
            with urllib.request.urlopen(url, timeout=INSTALL_TIMEOUT_S) as response:
                data: bytes = response.read()
        except OSError as exc:
            log.warning("%s: %s", url, exc)
            continue
        if hashlib.sha256(data).hexdigest() == deb.sha256:
            return data
        log.warning("%s: sha256 does not match the pin", url)
    return None


def unpack_deb(data: bytes, into: Path) -> None:
    """The files of a .deb's data tarball under ``into`` (a .deb is an ar archive: a 60-byte header per member)."""
    if not data.startswith(b"!<arch>\n"):
        raise ValueError("not a Debian package (no ar header)")
    at = 8
    while at + 60 <= len(data):
        header = data[at:at + 60]
        name, size = header[:16].decode().strip().rstrip("/"), int(header[48:58].decode().strip())
        member = data[at + 60:at + 60 + size]
        if name.startswith("data.tar"):
            with tarfile.open(fileobj=io.BytesIO(member), mode="r:*") as tar:
                tar.extractall(into, filter="tar")  # the package's hash is pinned; paths stay inside ``into``
            return
        at += 60 + size + size % 2
    raise ValueError("the Debian package has no data tarball")


def check_python_tools() -> InstallStep:
    """The pip recipes come from pyproject's pins; only check them here."""
    # astroid's recipe is pylint's: one check per distribution
    pinned = {recipe.distribution: recipe for _, recipe in recipes_of(PipPackage)}
    wrong: list[tuple[PipPackage, str | None]] = []
    for recipe in pinned.values():
        try:
            have: str | None = importlib.metadata.version(recipe.distribution)
        except importlib.metadata.PackageNotFoundError:
            have = None
        if have != recipe.version:
            wrong.append((recipe, have))
    if not wrong:
        return InstallStep(name="python-tools", outcome="present", detail=", ".join(pinned) + " at pinned versions")
    pip = " ".join(pip_argv("install", *(recipe.requirement for recipe, _ in wrong)))
    have_text = ", ".join(f"{recipe.distribution} {got or 'missing'}" for recipe, got in wrong)
    return InstallStep(name="python-tools", outcome="manual", detail=f"{have_text}; run: {pip}")
