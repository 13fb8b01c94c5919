"""How a located tool reports its version and content hash (a leaf: no toolchain imports).

Each probe kind is a frozen value the tool table holds; ``read(path)`` runs it.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import subprocess
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from pydantic import BaseModel

PROBE_TIMEOUT_S = 60.0


class ToolInfo(BaseModel):
    version: str
    path: str
    sha256: str | None = None


class ProbeError(RuntimeError):
    """A tool exists but could not report its version."""


@runtime_checkable
class Probe(Protocol):
    def read(self, path: str) -> ToolInfo: ...


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def command_output(argv: list[str]) -> str:
    """stdout + stderr of a version command (java and javac print theirs on stderr)."""
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=PROBE_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ProbeError(f"{argv[0]}: {exc}") from exc
    if proc.returncode != 0:
        raise ProbeError(f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr.strip()[:200]}")
    return proc.stdout + proc.stderr


def word_after(text: str, marker: str) -> str:
    """The token after ``marker`` (e.g. 'LLVM version 23.1.4' -> '23.1.4')."""
    _, sep, tail = text.partition(marker)
    if not sep or not tail.split():
        raise ProbeError(f"no {marker!r} in {text.strip()[:200]!r}")
    return tail.split()[0].strip('"')


@dataclass(frozen=True)
class VersionCommand:
    """Run ``<binary> <flag>``; the version is the word after ``marker`` (the whole output if None)."""

    flag: str
    marker: str | None = None

    def read(self, path: str) -> ToolInfo:
        output = command_output([path, self.flag])
        version = output.strip() if self.marker is None else word_after(output, self.marker)
        return ToolInfo(version=version, path=path, sha256=sha256_file(Path(path)))


@dataclass(frozen=True)
class PmdJars:
    """Version from pmd-core's own Maven metadata; hash over PMD's jars (the rules live there)."""

    def read(self, path: str) -> ToolInfo:
        lib = Path(path) / "lib"
        cores = sorted(lib.glob("pmd-core-*.jar"))
        if not cores:
            raise ProbeError(f"no pmd-core jar in {lib}")
        with zipfile.ZipFile(cores[0]) as jar:
            props = jar.read("META-INF/maven/net.sourceforge.pmd/pmd-core/pom.properties").decode()
        version = dict(line.split("=", 1) for line in props.splitlines() if "=" in line)["version"]
        jars = {jar.name: sha256_file(jar) for jar in sorted(lib.glob("pmd-*.jar"))}
        return ToolInfo(version=version, path=path, sha256=hashlib.sha256(json.dumps(jars).encode()).hexdigest())


@dataclass(frozen=True)
class PinnedDigest:
    """A file with no version of its own (testlib.h): it is ``version`` when its hash is the pinned one."""

    file: str
    sha256: str
    version: str

    def read(self, path: str) -> ToolInfo:
        target = Path(path) / self.file
        sha = sha256_file(target)
        return ToolInfo(version=self.version if sha == self.sha256 else "unknown", path=str(target), sha256=sha)


@dataclass(frozen=True)
class DistributionVersion:
    """A package of this interpreter's environment (pylint and astroid run in it); no hash."""

    distribution: str

    def read(self, path: str) -> ToolInfo:
        try:
            version = importlib.metadata.version(self.distribution)
        except importlib.metadata.PackageNotFoundError as exc:
            raise ProbeError(f"python package {self.distribution} is not installed") from exc
        return ToolInfo(version=version, path=path)
