"""ToolchainManifest: each tool's version, path and content hash, and the toolchain id.

The id hashes versions and hashes only, never paths: the same tools installed
at different places on two nodes give the same id, so cached results are shared.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import subprocess
import threading
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel

from linteval_ray.toolchain import pins

if TYPE_CHECKING:
    from linteval_ray.toolchain.discover import Toolchain

# The sandbox mechanism does not change any verdict or alert, so it stays out of the id.
NOT_IN_IDENTITY = frozenset({"bwrap"})
PROBE_TIMEOUT_S = 60.0
# tool name -> Toolchain attribute, where they differ
ATTRIBUTES = {"pmd": "pmd_home", "testlib": "testlib_dir"}


class ToolInfo(BaseModel):
    version: str
    path: str
    sha256: str | None = None


class ToolchainManifest(BaseModel):
    tools: dict[str, ToolInfo]

    @property
    def toolchain_id(self) -> str:
        identity = {
            name: [info.version, info.sha256]
            for name, info in sorted(self.tools.items())
            if name not in NOT_IN_IDENTITY
        }
        return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:12]


class ProbeError(RuntimeError):
    """A tool exists but could not report its version."""


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _output(argv: list[str]) -> str:
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=PROBE_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ProbeError(f"{argv[0]}: {exc}") from exc
    if proc.returncode != 0:
        raise ProbeError(f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr.strip()[:200]}")
    # java and javac print their version on stderr
    return proc.stdout + proc.stderr


def _word_after(text: str, marker: str) -> str:
    """The token after ``marker`` (e.g. 'LLVM version 23.1.4' -> '23.1.4')."""
    _, sep, tail = text.partition(marker)
    if not sep or not tail.split():
        raise ProbeError(f"no {marker!r} in {text.strip()[:200]!r}")
    return tail.split()[0].strip('"')


def probe_gxx(path: str) -> ToolInfo:
    version = _output([path, "-dumpfullversion"]).strip()
    return ToolInfo(version=version, path=path, sha256=sha256_file(Path(path).resolve()))


def probe_clang_tidy(path: str) -> ToolInfo:
    version = _word_after(_output([path, "--version"]), "LLVM version")
    return ToolInfo(version=version, path=path, sha256=sha256_file(Path(path)))


def probe_java(path: str) -> ToolInfo:
    version = _word_after(_output([path, "-version"]), "version")
    return ToolInfo(version=version, path=path, sha256=sha256_file(Path(path).resolve()))


def probe_javac(path: str) -> ToolInfo:
    version = _word_after(_output([path, "-version"]), "javac")
    return ToolInfo(version=version, path=path, sha256=sha256_file(Path(path).resolve()))


def probe_bwrap(path: str) -> ToolInfo:
    version = _word_after(_output([path, "--version"]), "bubblewrap")
    return ToolInfo(version=version, path=path, sha256=sha256_file(Path(path).resolve()))


def probe_pmd(home: str) -> ToolInfo:
    """Version from pmd-core's own Maven metadata; hash over PMD's jars (the rules live there)."""
    lib = Path(home) / "lib"
    cores = sorted(lib.glob("pmd-core-*.jar"))
    if not cores:
        raise ProbeError(f"no pmd-core jar in {lib}")
    with zipfile.ZipFile(cores[0]) as jar:
        props = jar.read("META-INF/maven/net.sourceforge.pmd/pmd-core/pom.properties").decode()
    version = dict(line.split("=", 1) for line in props.splitlines() if "=" in line)["version"]
    jars = {jar.name: sha256_file(jar) for jar in sorted(lib.glob("pmd-*.jar"))}
    return ToolInfo(version=version, path=home, sha256=hashlib.sha256(json.dumps(jars).encode()).hexdigest())


def probe_testlib(directory: str) -> ToolInfo:
    header = Path(directory) / "testlib.h"
    sha = sha256_file(header)
    version = pins.TESTLIB_VERSION if sha == pins.TESTLIB_SHA256 else "unknown"
    return ToolInfo(version=version, path=str(header), sha256=sha)


def probe_python_package(name: str) -> ToolInfo:
    """pylint (and astroid, which decides what pylint infers) run in this interpreter's environment."""
    try:
        dist = importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError as exc:
        raise ProbeError(f"python package {name} is not installed") from exc
    return ToolInfo(version=dist.version, path=str(dist.locate_file("")))


PROBES = {
    "gxx": probe_gxx,
    "clang_tidy": probe_clang_tidy,
    "java": probe_java,
    "javac": probe_javac,
    "pmd": probe_pmd,
    "testlib": probe_testlib,
    "bwrap": probe_bwrap,
}
PYTHON_TOOLS = ("pylint", "astroid")

_cache: dict[tuple, ToolchainManifest] = {}
_lock = threading.Lock()


def manifest_of(toolchain: Toolchain) -> ToolchainManifest:
    """Probe every tool once per process (versions cannot change under a running worker)."""
    paths = {name: getattr(toolchain, ATTRIBUTES.get(name, name)) for name in PROBES}
    key = tuple(sorted((name, str(path)) for name, path in paths.items()))
    with _lock:
        if key not in _cache:
            tools = {name: PROBES[name](str(path)) for name, path in paths.items() if path is not None}
            tools.update({name: probe_python_package(name) for name in PYTHON_TOOLS})
            _cache[key] = ToolchainManifest(tools=tools)
        return _cache[key]
