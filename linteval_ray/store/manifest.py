"""``manifest.json``: everything needed to know what a run was and to reproduce it."""

from __future__ import annotations

import hashlib
import json
import platform
import sys
from datetime import UTC, datetime
from importlib import metadata
from typing import Any

from pydantic import BaseModel, Field

from linteval_ray.config import RunConfig
from linteval_ray.store.folder import RunFolder


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def library_versions() -> dict[str, str | None]:
    names = ["linteval-ray", "ray", "pyarrow", "pydantic", "fsspec", "s3fs", "pylint", "clang-tidy", "vllm"]
    return {"python": sys.version.split()[0], "platform": platform.platform(), **{n: _version(n) for n in names}}


def redacted_config(config: RunConfig) -> dict[str, Any]:
    """The config without secrets (storage keys never reach a results folder)."""
    data = config.model_dump(mode="json")
    for field in ("key", "secret"):
        if data["storage"].get(field):
            data["storage"][field] = "***"
    return data


class Manifest(BaseModel):
    run_name: str
    output: str
    config: dict[str, Any]
    fingerprint: str = Field(description="hash of what makes results comparable; resume refuses a mismatch")
    dataset_url: str
    dataset_sha256: str
    prompt_version: str
    model: str
    backend: str
    toolchain: dict[str, Any]
    lint_profile: dict[str, Any] = Field(default_factory=dict, description="name, version, config_id, path")
    versions: dict[str, str | None]
    started_at: str
    finished_at: str | None = None
    attempts: int = 1
    counts: dict[str, int] = Field(default_factory=dict)
    cache: dict[str, dict[str, int]] = Field(
        default_factory=dict,
        description="content-cache counters per key kind (tool = testlib tool compiles, tests, reference "
        "answers, lint of originals, compile of programs, ...): hits, misses (= builds), puts, waits; "
        "summed over every validation actor",
    )
    audit: dict[str, Any] = Field(
        default_factory=dict,
        description="revisions judged by the fast path and the reference path (validation.audit_fraction): "
        "audited, agreed, disagreed, disagreeing_rows (a few row ids); the reference judgement is recorded",
    )
    warnings: list[str] = Field(default_factory=list, description="checks before generation (the LoRA probe)")
    out_of_service: dict[str, str] = Field(
        default_factory=dict, description="worker -> why its canary took it out of service (its batches went to "
        "a restarted worker, or, once its node used up its hand-overs, its rows are infra_error)")


def fingerprint(config: RunConfig, dataset_sha256: str, toolchain_id: str, lint_config_id: str) -> str:
    """What must not change between a run and its resume: data, model, prompt, limits, tools, lint settings."""
    parts = {
        "dataset": dataset_sha256,
        "dataset_filters": config.dataset.model_dump(mode="json", exclude={"source"}),
        "generation": config.generation.model_dump(mode="json", exclude={"health"}),  # thresholds change no row
        "limits": config.validation.limits.model_dump(mode="json"),
        "toolchain": toolchain_id,
        "lint": {"profile": lint_config_id, "as_written": config.validation.lint_as_written},
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]


def read_manifest(folder: RunFolder) -> Manifest | None:
    data = folder.store.read_if_exists(folder.manifest)
    return None if data is None else Manifest.model_validate_json(data)


def write_manifest(folder: RunFolder, manifest: Manifest) -> None:
    folder.store.write_atomic(folder.manifest, manifest.model_dump_json(indent=2).encode())
