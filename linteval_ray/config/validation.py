"""The validation section: per-test limits, the sandbox, the audit, lint settings, the CPU pool."""

from __future__ import annotations

import warnings
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from linteval_ray.config.section import NEUTRAL, Section


class TestLimits(Section):
    """Per-test limits for revisions: time = max(floor, factor x the original's time)."""

    time_floor_s: float = Field(default=2.0, gt=0)
    time_factor: float = Field(default=3.0, gt=0)
    memory_mb: int = Field(default=512, ge=64)
    output_mb: int = Field(default=64, ge=1)
    compile_timeout_s: float = Field(default=120.0, gt=0)
    lint_timeout_s: float = Field(default=120.0, gt=0, description="wall clock per linted file (a generous cap)")
    lint_cpu_s: float = Field(default=30.0, gt=0, description="CPU seconds a linter may spend on one file "
                              "(a batch, for PMD); past it the file gets a lint_error and is still judged")
    lint_memory_mb: int = Field(default=4096, ge=1024, description="address space of each linter process")
    reference_time_limit_s: float = Field(default=20.0, gt=0, description="limit for the original on one test")


SandboxKind = Literal["bwrap", "rlimits"]  # each registered with its class in validate/sandbox/


class PoolConfig(Section):
    """The CPU validation actor pool (speed settings all: a resumed run may change them)."""

    min_actors: int = Field(default=1, ge=1)
    max_actors: int | None = Field(default=None, description="default: one per available CPU / num_cpus")
    num_cpus: float = Field(default=1.0, gt=0, description="CPUs reserved per validation actor")
    batch_size: int = Field(default=4, ge=1, description="samples per map_batches call")
    store_batch_size: int = Field(
        default=16, ge=1, description="rows per result shard (a killed run recomputes at most these); "
        "at most batch_size: the validation actor writes them itself, with no store operator of its own"
    )
    resources: dict[str, float] = Field(default_factory=dict, description="custom resources, e.g. {validation: 1}")


# Settings of earlier versions that no longer choose anything: accepted with a warning, so that an older
# config file still runs (they were speed settings: no result depends on them).
REMOVED = {
    "java_tests": "every Java test runs in a JVM of its own now",
    "native_tests": "every C++ and Python test runs in a box of its own now",
}


class ValidationConfig(Section):
    limits: TestLimits = Field(default_factory=TestLimits)
    sandbox: SandboxKind = Field(
        default="bwrap", description="'rlimits' is UNSAFE: no filesystem or network isolation"
    )
    allow_unsafe_sandbox: Annotated[bool, NEUTRAL] = Field(
        default=False, description="must be true to use sandbox: rlimits")
    python: str = Field(default="/usr/bin/python3", description="interpreter for py3 submissions")
    audit_fraction: Annotated[float, NEUTRAL] = Field(
        default=0.01, ge=0, le=1,
        description="share of revisions (by a hash of the row id) judged in the box server's boxes and again in "
        "boxes bubblewrap builds (the reference builder); the reference judgement is recorded, disagreements are "
        "logged and counted in manifest.json (audit). 0: none",
    )
    lint_profile: Annotated[str, NEUTRAL] = Field(  # its files are fingerprinted (the profile's config_id)
        default="linteval",
        description="linter settings: 'linteval' (calibrated on the dataset's records), 'broad', "
        "or a profile folder (e.g. from `linteval-ray calibrate --derive`)",
    )
    lint_as_written: bool = Field(
        default=False,
        description="lint revisions with their suppression comments honoured (NOLINT, pylint: disable, "
        "NOPMD); off: suppressions a model adds hide no alert. Only for comparing with numbers computed that way",
    )
    cache_url: Annotated[str | None, NEUTRAL] = Field(
        default=None,
        description="shared content-cache tier every node reads and fills (folder or s3://...); default: "
        "<parent of output>/linteval-cache when the output is on object storage, else none (each node "
        "keeps its own cache in $LINTEVAL_CACHE_DIR, default ~/.cache/linteval-ray)",
    )
    canary_every_batches: Annotated[int, NEUTRAL] = Field(
        default=0, ge=0,
        description="judge built-in known-good and known-bad revisions before the first batch and every N "
        "batches; a wrong verdict takes the worker out of service (under Ray its batch goes to a restarted "
        "worker; its rows are infra_error once its node used up its hand-overs). 0: no canaries",
    )
    pool: Annotated[PoolConfig, NEUTRAL] = Field(default_factory=PoolConfig)

    @model_validator(mode="before")
    @classmethod
    def _drop_removed(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for key in REMOVED.keys() & data.keys():
                warnings.warn(f"validation.{key} is ignored: {REMOVED[key]} (docs/security.md)", stacklevel=2)
            data = {k: v for k, v in data.items() if k not in REMOVED}
        return data
