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
from linteval_ray.config.section import public_settings, result_settings
from linteval_ray.store.folder import RunFolder

# What the fingerprint hashes changed with linteval-ray's versions; a folder of another scheme cannot
# be resumed by this version, whatever its settings. 2: the settings that can change a result only
# (speed settings, where files go, credentials left out: config/section.py). 3: the lint profile
# by the identities of the languages the run covers only (``run_fingerprint_parts``). 4: the tools by the same
# languages' identities (``Toolchain.language_id``): registering another language changes nothing. 5: sampling's
# top_k, min_p and repetition_penalty, unset by default: the vllm backend then applies the model's
# generation_config.json defaults, as ``vllm serve`` does (it applied none before).
FINGERPRINT_SCHEME = 5


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
    """The config without secrets: storage keys, env_vars values and the credentials of URLs never
    reach a results folder."""
    return public_settings(config)


class Manifest(BaseModel):
    run_name: str
    output: str
    config: dict[str, Any]
    fingerprint: str = Field(description="hash of what makes results comparable; resume refuses a mismatch")
    fingerprint_scheme: int = Field(default=1, description="what the fingerprint hashes (FINGERPRINT_SCHEME)")
    fingerprint_parts: dict[str, Any] = Field(
        default_factory=dict, description="what the fingerprint hashes (no secret: result_settings), so that a "
        "refused resume names what changed")
    languages: dict[str, str] = Field(
        default_factory=dict, description="each registered language -> where its spec came from (a built-in "
        "package, a $LINTEVAL_RAY_LANGUAGES plugin module, or code)")
    dataset_url: str
    dataset_sha256: str
    dataset_identity: dict[str, Any] = Field(
        default_factory=dict, description="what dataset_sha256 covers (hashed) and, per file, what identified it")
    task: str = Field(default="linteval", description="the task the run evaluates (linteval_ray/tasks/)")
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
    sampling: dict[str, Any] = Field(
        default_factory=dict,
        description="what every generation request carried (generate/sampling.py EffectiveSampling): params, "
        "from_model (taken from the model's generation_config.json), left_to_server (the endpoint's defaults)")
    out_of_service: dict[str, str] = Field(
        default_factory=dict, description="worker -> why its canary took it out of service (its batches went to "
        "a restarted worker, or, once its node used up its hand-overs, its rows are infra_error)")


def fingerprint_parts(config: RunConfig, dataset_sha256: str, toolchain_ids: dict[str, str],
                      lint_config_ids: dict[str, str], task: dict[str, Any] | None = None) -> dict[str, Any]:
    """What must not change between a run and its resume: the data, every setting that can change a
    result (model, prompt, sampling, limits, sandbox, filters: ``result_settings``), of each language
    the run covers its tools and its lint profile's file (language -> its identity), and a task other
    than LintEval with its options (``task``; LintEval's parts are what they were). A speed setting
    may change (batch sizes, actors, replicas, concurrency)."""
    parts = {"dataset": dataset_sha256, "settings": result_settings(config), "toolchain": toolchain_ids,
             "lint_profile": lint_config_ids}
    if task is not None:
        parts["task"] = task
    return parts


def digest(parts: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]


def refusal(previous: Manifest, parts: dict[str, Any]) -> str | None:
    """Why a folder holding ``previous`` cannot be resumed by a run whose fingerprint hashes ``parts``
    (None: it can): the settings that differ, old -> new."""
    fingerprint = digest(parts)
    if previous.fingerprint == fingerprint:
        return None
    if previous.fingerprint_scheme != FINGERPRINT_SCHEME:
        return (f"holds run {previous.run_name!r} of an earlier linteval-ray, whose fingerprint covered other "
                "settings: this version cannot resume it")
    changed = "; ".join(f"{key}: {old} -> {new}" for key, old, new in differences(previous.fingerprint_parts, parts))
    return (f"holds run {previous.run_name!r} with other data, model, prompt, sampling, limits or tools "
            f"({changed or f'fingerprint {previous.fingerprint} != {fingerprint}'})")


def differences(old: Any, new: Any, path: str = "") -> list[tuple[str, str, str]]:
    """(dotted key, old value, new value) of every setting that differs (``-`` where one side lacks it)."""
    if isinstance(old, dict) and isinstance(new, dict):
        return [change for key in sorted(set(old) | set(new), key=str)
                for change in differences(old.get(key, MISSING), new.get(key, MISSING), f"{path}.{key}" if path
                                          else str(key))]
    if old == new:
        return []
    return [(path, _shown(old), _shown(new))]


MISSING = object()


def _shown(value: Any) -> str:
    return "-" if value is MISSING else json.dumps(value, sort_keys=True)


def read_manifest(folder: RunFolder) -> Manifest | None:
    data = folder.store.read_if_exists(folder.manifest)
    return None if data is None else Manifest.model_validate_json(data)


def write_manifest(folder: RunFolder, manifest: Manifest) -> None:
    folder.store.write_atomic(folder.manifest, manifest.model_dump_json(indent=2).encode())
