"""Canaries take a worker that gives wrong verdicts out of service; a healthy one scores."""

from __future__ import annotations

import pytest

from linteval_ray.config import PoolConfig, TestLimits, ValidationConfig
from linteval_ray.schema import LintEvalRecord, Status, Verdict
from linteval_ray.validate.canary import CANARY_SAMPLE, canary_rows, out_of_service_workers
from linteval_ray.validate.engine import Validator

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
