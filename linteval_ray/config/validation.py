"""The validation section: per-test limits, the sandbox, how tests run, lint settings, the CPU pool."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

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


JavaTests = Literal["one_jvm", "fresh_jvm"]
NativeTests = Literal["one_box", "fresh_box"]
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


class ValidationConfig(Section):
    limits: TestLimits = Field(default_factory=TestLimits)
    sandbox: SandboxKind = Field(
        default="bwrap", description="'rlimits' is UNSAFE: no filesystem or network isolation"
    )
    allow_unsafe_sandbox: Annotated[bool, NEUTRAL] = Field(
        default=False, description="must be true to use sandbox: rlimits")
    python: str = Field(default="/usr/bin/python3", description="interpreter for py3 submissions")
    java_tests: Annotated[JavaTests, NEUTRAL] = Field(
        default="one_jvm",
        description="how a Java revision's tests run: 'one_jvm' runs them one after the other in one JVM per "
        "revision (in the box, a fresh class loader per test) and judges from the first test that does not end "
        "normally in fresh JVMs; 'fresh_jvm' starts a JVM per test (the reference path). Same verdicts, "
        "less CPU: see docs/security.md",
    )
    native_tests: Annotated[NativeTests, NEUTRAL] = Field(
        default="one_box",
        description="how a C++ or Python revision's tests run: 'one_box' runs them one after the other in one box "
        "per revision and keeps only tests that end normally and leave nothing a later test could observe (no "
        "process, pid, file, time stamp, extended attribute, IPC object, socket or packet); from the first other "
        "test on, a box per test (one that ran out of CPU time is scored from its run there). 'fresh_box' gives "
        "every test a box of its own "
        "(the reference path). Same verdicts, less CPU: see docs/security.md",
    )
    audit_fraction: Annotated[float, NEUTRAL] = Field(
        default=0.01, ge=0, le=1,
        description="share of revisions (by a hash of the row id) judged by the fast path (java_tests: one_jvm, "
        "native_tests: one_box) and again by the reference path; the reference judgement is recorded, "
        "disagreements are logged and counted in manifest.json (audit). 0: none",
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
