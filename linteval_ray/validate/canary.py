"""Canaries: a validation worker proves it judges correctly before (and while) it scores.

Known revisions of a bundled problem (``lr01``, prefix sums, Python: no compile) with known
verdicts: the original (``passed``) and an off-by-one copy (``wrong_answer``). A worker
judges them before its first batch and every ``canary_every_batches`` batches; if either
gets another *scored* verdict (a broken toolchain, checker, sandbox or clock would do
that), the worker goes out of service: every later row is an ``infra_error`` naming the
canary, never a score. A canary that is itself an infra error (full disk, outage) says
nothing about the verdicts this worker gives and is only logged.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from linteval_ray.schema import LintEvalRecord, ResultRow, Status, Verdict
from linteval_ray.schema.bundled import bundled_path
from linteval_ray.schema.table import ResultTable

log = logging.getLogger(__name__)

CANARY_SAMPLE = "lr01_py3_0"
OUT_OF_SERVICE = "worker out of service: "  # how an out-of-service worker's rows' error begins
# The original with every answer off by one: compiles, runs, prints the wrong numbers.
_BREAK = ('out.append(str(P[r]-P[l-1]))', 'out.append(str(P[r]-P[l-1]+1))')


def canary_rows() -> list[tuple[dict[str, Any], Verdict]]:
    """(pipeline row, the verdict a correct worker gives it)."""
    record = _canary_record()
    bad = record.code.replace(*_BREAK)
    assert bad != record.code, "the canary's original changed: update _BREAK"
    rows = []
    for draw, (code, verdict) in enumerate([(record.code, Verdict.PASSED), (bad, Verdict.WRONG_ANSWER)]):
        row = {"record_json": record.model_dump_json(), "draw": draw, "revised_code": code, "model": "canary"}
        rows.append((row, verdict))
    return rows


class CanaryCheck(NamedTuple):
    """The canaries' outcome: why this worker must stop scoring (``wrong``), and whether every canary
    got its verdict (``passed``; an infra error of a canary says nothing either way)."""

    wrong: str | None
    passed: bool


def check_canaries(evaluate: Callable[[list[dict[str, Any]]], list[ResultRow]]) -> CanaryCheck:
    """Judge the canaries with ``evaluate``."""
    expected = canary_rows()
    results = evaluate([row for row, _ in expected])
    passed = True
    for (_, verdict), result in zip(expected, results, strict=True):
        if result.status == Status.INFRA_ERROR:
            log.warning("canary %s inconclusive: %s", result.row_id, result.error)
            passed = False
            continue
        if result.status != Status.EVALUATED or result.verdict != verdict:
            return CanaryCheck(f"canary {result.row_id} expected {verdict.value}, got {result.status.value}/"
                               f"{result.verdict.value if result.verdict else None}: "
                               f"{result.validation_error or result.error}", passed=False)
    return CanaryCheck(None, passed)


def _canary_record() -> LintEvalRecord:
    for line in bundled_path().read_text().splitlines():
        if f'"{CANARY_SAMPLE}"' in line:
            record = LintEvalRecord.model_validate_json(line)
            if record.sample_id == CANARY_SAMPLE:
                return record
    raise LookupError(f"canary sample {CANARY_SAMPLE} is not in the bundled data set")


def out_of_service_workers(rows: ResultTable | Iterable[ResultRow]) -> dict[str, str]:
    """worker -> why it went out of service, from the rows it refused to score (for the manifest)."""
    pairs = (zip(rows.column("worker"), rows.column("error"), strict=True) if isinstance(rows, ResultTable)
             else ((row.worker, row.error) for row in rows))
    return {worker or "?": error.removeprefix(OUT_OF_SERVICE) for worker, error in pairs
            if error and error.startswith(OUT_OF_SERVICE)}
