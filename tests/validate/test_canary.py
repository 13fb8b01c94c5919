"""Canaries take a worker that gives wrong verdicts out of service; a healthy one scores."""

from __future__ import annotations

from typing import Any

import pytest

from linteval_ray.config import PoolConfig, TestLimits, ValidationConfig
from linteval_ray.schema import LintEvalRecord, Status, Verdict
from linteval_ray.schema.bundled import bundled_path
from linteval_ray.validate.canary import CANARY_SAMPLE, canary_rows, out_of_service_workers
from linteval_ray.validate.engine import Validator
from linteval_ray.validate.sandbox import Sandbox, SandboxError

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def _good_row() -> dict:
    row, verdict = canary_rows()[0]
    assert verdict == Verdict.PASSED
    return {**row, "draw": 7, "model": "m"}


def test_a_healthy_worker_passes_its_canaries_and_scores(session_cache_dir: str) -> None:
    validator = Validator(ValidationConfig(canary_every_batches=2, pool=PoolConfig(num_cpus=1)))
    try:
        for _ in range(3):  # canaries before batches 1 and 3
            (row,) = validator.evaluate_batch([_good_row()])
            assert (row.status, row.verdict) == (Status.EVALUATED, Verdict.PASSED), row.error
        assert validator.out_of_service is None
    finally:
        validator.close()


def test_a_worker_that_misjudges_the_known_good_revision_goes_out_of_service(session_cache_dir: str) -> None:
    """A time floor no program can meet stands in for a broken node (a slow clock, a broken
    sandbox): the known-good canary is not passed, so nothing this worker judges is scored."""
    limits = TestLimits(time_floor_s=0.001, time_factor=0.001)
    validator = Validator(ValidationConfig(canary_every_batches=50, limits=limits, pool=PoolConfig(num_cpus=1)))
    try:
        (row,) = validator.evaluate_batch([_good_row()])
    finally:
        validator.close()
    assert validator.out_of_service is not None and CANARY_SAMPLE in validator.out_of_service
    assert (row.status, row.verdict, row.pass_at_1) == (Status.INFRA_ERROR, Verdict.INFRA_ERROR, False)
    assert "worker out of service: canary" in (row.error or "")
    assert LintEvalRecord.model_validate_json(_good_row()["record_json"]).sample_id == row.sample_id
    # what the run's manifest reports
    row.worker = "node:1"
    assert out_of_service_workers([row]) == {"node:1": validator.out_of_service}


class _FailsOnNativeBinaries:
    """A sandbox that fails (SandboxError) on every run of a C++ revision's binary, as if the program
    broke it, and runs everything else (compilers, tools, originals, the Python canaries) as the real
    one does; ``everything``: fails on every run."""

    def __init__(self, sandbox: Sandbox, *, everything: bool = False) -> None:
        self._sandbox, self._everything, self.failures = sandbox, everything, 0

    def __getattr__(self, name: str) -> object:
        return getattr(self._sandbox, name)

    def run(self, argv: list[str], **kwargs: Any) -> object:
        revision = argv[0] == "/prog/prog" and any("/revision-" in str(m.src) for m in kwargs.get("mounts") or [])
        if self._everything or revision:
            self.failures += 1
            raise SandboxError("the box was not set up: injected")
        return self._sandbox.run(argv, **kwargs)


def _cpp_row() -> dict:
    record = next(LintEvalRecord.model_validate_json(line) for line in bundled_path().read_text().splitlines()
                  if '"lr01_cpp_0"' in line)
    return {"record_json": record.model_dump_json(), "draw": 0, "revised_code": record.code, "model": "m"}


def _with_sandbox(validator: Validator, sandbox: _FailsOnNativeBinaries) -> None:
    validator.judge.sandbox = sandbox  # type: ignore[assignment]


def test_a_revision_that_breaks_the_sandbox_twice_while_the_canaries_pass_is_the_programs_failure(
    session_cache_dir: str,
) -> None:
    validator = Validator(ValidationConfig(pool=PoolConfig(num_cpus=1)))
    failing = _FailsOnNativeBinaries(validator.sandbox)
    try:
        _with_sandbox(validator, failing)
        (row,) = validator.evaluate_batch([_cpp_row()])
    finally:
        validator.close()
    assert validator.out_of_service is None
    assert (row.status, row.verdict, row.pass_at_1) == (Status.EVALUATED, Verdict.RUNTIME_ERROR, False), row.error
    assert "the sandbox failed on it twice, its canaries passing between" in (row.validation_error or "")
    assert failing.failures == 2  # once, the canaries, once more


def test_a_sandbox_that_fails_on_the_canaries_too_leaves_the_row_ours(session_cache_dir: str) -> None:
    validator = Validator(ValidationConfig(pool=PoolConfig(num_cpus=1)))
    try:
        _with_sandbox(validator, _FailsOnNativeBinaries(validator.sandbox, everything=True))
        (row,) = validator.evaluate_batch([_cpp_row()])
    finally:
        validator.close()
    assert (row.status, row.verdict) == (Status.INFRA_ERROR, Verdict.INFRA_ERROR), row.error
