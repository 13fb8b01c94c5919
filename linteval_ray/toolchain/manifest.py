"""ToolchainManifest: each tool's version, path and content hash, and the toolchain id.

The id hashes versions and hashes only, never paths: the same tools installed
at different places on two nodes give the same id, so cached results are shared.
A language's results depend on its own tools and the judge's only (``Toolchain.language_id``):
registering another language, with tools of its own, changes no other language's identity.
Tools whose spec says ``in_identity=False`` (bwrap) stay out of it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path

from pydantic import BaseModel

from linteval_ray.toolchain.probe import ProbeError, ToolInfo
from linteval_ray.toolchain.tools import tools

__all__ = ["ProbeError", "ToolInfo", "ToolchainManifest", "manifest_for"]


class ToolchainManifest(BaseModel):
    tools: dict[str, ToolInfo]

    @functools.cached_property  # hashed once per manifest
    def toolchain_id(self) -> str:
        """Every tool's identity: what the machine has (a language's results depend on a part of it:
        ``identity_of``)."""
        return self.identity_of(self.tools)

    def identity_of(self, names: Iterable[str]) -> str:
        """The identity of the tools ``names`` (those found; versions and hashes, never paths)."""
        outside_identity = {spec.name for spec in tools() if not spec.in_identity}
        identity = {
            name: [self.tools[name].version, self.tools[name].sha256]
            for name in sorted(set(names) & set(self.tools))
            if name not in outside_identity
        }
        return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:12]


def probe_every_tool(prefix: Path, known_paths: Mapping[str, str | None]) -> ToolchainManifest:
    """Probe each tool at its known path (else where its spec locates it); optional absent ones are left out."""
    infos: dict[str, ToolInfo] = {}
    for spec in tools():
        path = known_paths[spec.name] if spec.name in known_paths else spec.locate.find(prefix)
        if path is not None:
            infos[spec.name] = spec.probe.read(path)
        elif spec.required:
            raise ProbeError(f"{spec.name} is not installed")
    return ToolchainManifest(tools=infos)


_cache: dict[tuple[tuple[str, str | None], ...], ToolchainManifest] = {}
_lock = threading.Lock()


def manifest_for(prefix: Path, known_paths: Mapping[str, str | None]) -> ToolchainManifest:
    """Probe every tool once per process (versions cannot change under a running worker)."""
    key = tuple(sorted(known_paths.items()))
    with _lock:
        if key not in _cache:
            _cache[key] = probe_every_tool(prefix, known_paths)
        return _cache[key]
