"""A suite run's ``manifest.json``: what the run was, how it judged, and its fingerprint.

The fingerprint covers what can change a row: the identity of every test source and pool file
(``load/identity.py``: what their stores state, never a download), every setting that is neither
neutral nor secret (``config/section.py``: the task's options, limits, filters, how solutions are
judged and cut into units) and the tools. A folder holding another run, or a ``linteval-ray run``, is
refused with one line; speed settings (actors, batch sizes) may change between attempts.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from linteval_ray.config.section import result_settings
from linteval_ray.errors import LintEvalError
from linteval_ray.store import manifest as run_manifests
from linteval_ray.store.folder import RunFolder
from linteval_ray.suite.config import SuiteConfig

FINGERPRINT_SCHEME = 1


class SuiteMismatchError(LintEvalError):
    """The output folder holds another run."""


class SourceRecord(BaseModel):
    url: str
    task: str | None = None  # a test source's
    format: str | None = None  # a pool's: deepmind or flat
    identity: dict[str, Any] = Field(description="sha256 and what it covers, per file (load/identity.py)")


class SuiteManifest(BaseModel):
    kind: Literal["suite"] = "suite"
    run_name: str
    output: str
    config: dict[str, Any]
    fingerprint: str
    fingerprint_scheme: int = FINGERPRINT_SCHEME
    tests: list[SourceRecord]
    pools: list[SourceRecord]
    judging: dict[str, Any] = Field(description="how solutions were judged: stop_at_first_failure, python2, "
                                    "cpp_dialects, the test sources' task options")
    toolchain: dict[str, Any]
    versions: dict[str, str | None]
    started_at: str
    finished_at: str | None = None
    attempts: int = 1
    counts: dict[str, int] = Field(default_factory=dict)
    cache: dict[str, dict[str, int]] = Field(default_factory=dict, description="content-cache counters per kind")


def suite_fingerprint(config: SuiteConfig, tests: list[SourceRecord], pools: list[SourceRecord],
                      toolchain_id: str) -> str:
    return run_manifests.digest({"scheme": FINGERPRINT_SCHEME, "settings": result_settings(config),
                                 "tests": [[t.task, t.identity["sha256"]] for t in tests],
                                 "pools": [p.identity["sha256"] for p in pools], "toolchain": toolchain_id})


def start_manifest(folder: RunFolder, manifest: SuiteManifest) -> SuiteManifest:
    """``manifest``, carrying on an earlier attempt's (its name, start, attempts), written before any work;
    a folder holding another run is refused."""
    data = folder.store.read_if_exists(folder.manifest)
    if data is not None:
        try:
            previous = SuiteManifest.model_validate_json(data)
        except ValidationError:
            raise SuiteMismatchError(f"{folder.url} holds a linteval-ray run, not a suite run; choose a new output "
                                     "folder") from None
        if previous.fingerprint != manifest.fingerprint:
            raise SuiteMismatchError(f"{folder.url} holds suite run {previous.run_name!r} of other tests, pools, "
                                     f"settings or tools (fingerprint {previous.fingerprint} != "
                                     f"{manifest.fingerprint}); choose a new output folder")
        manifest = manifest.model_copy(update={"run_name": previous.run_name, "started_at": previous.started_at,
                                               "attempts": previous.attempts + 1})
    write_manifest(folder, manifest)
    return manifest


def write_manifest(folder: RunFolder, manifest: SuiteManifest) -> None:
    folder.store.write_atomic(folder.manifest, manifest.model_dump_json(indent=2).encode())
