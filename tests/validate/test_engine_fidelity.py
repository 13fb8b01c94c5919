"""The engine scores what LintEval means: suppressions are no fix, bare answers, lint agreement."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from linteval_ray.config import ValidationConfig
from linteval_ray.schema import LintEvalRecord, Status, Verdict
from linteval_ray.schema.rows import InputRow
from linteval_ray.validate.engine import Validator
from tests.pipeline.samples import bundled_jsonl

RECORDS = {r.sample_id: r for r in (LintEvalRecord.model_validate_json(line)
                                    for line in bundled_jsonl().read_text().splitlines())}


def _first(language: str) -> LintEvalRecord:
    return next(r for r in RECORDS.values() if r.language == language)


@pytest.fixture(scope="module")
def validator() -> Iterator[Validator]:
    v = Validator(ValidationConfig())
    yield v
    v.close()


@pytest.fixture(scope="module")
def as_written() -> Iterator[Validator]:
    v = Validator(ValidationConfig(lint_as_written=True))
    yield v
    v.close()


def _suppressed(record: LintEvalRecord) -> tuple[str, int]:
    if record.language == "cpp":
        return f"// NOLINTBEGIN\n{record.code.rstrip()}\n// NOLINTEND\n", 2
    return f"# pylint: disable=all\n{record.code}", 1


@pytest.mark.parametrize("language", ["cpp", "py3"])
def test_a_revision_that_only_adds_suppressions_removes_no_alert(language: str, validator: Validator,
                                                                as_written: Validator) -> None:
    record = _first(language)
    revision, directives = _suppressed(record)
    row = validator.evaluate(record, {"revised_code": revision})
    assert row.status == Status.EVALUATED and row.verdict == Verdict.PASSED, row.validation_error
    assert row.suppressions_added == directives
    assert row.metrics is not None
    # every original alert is still there: nothing fixed, nothing made up (line numbers moved by one)
    assert row.metrics.old_messages_remaining == row.metrics.original_total_messages > 0
    assert row.metrics.mrr_at_pass is not None and row.metrics.mrr_at_pass <= 0
    honoured = as_written.evaluate(record, {"revised_code": revision})
    assert honoured.metrics is not None and honoured.metrics.revised_total_messages < row.metrics.revised_total_messages


def test_suppressions_kept_from_the_original_keep_their_effect(validator: Validator) -> None:
    base = _first("py3")
    original = "import os  # pylint: disable=unused-import\n" + base.code
    record = base.model_copy(update={"code": original})
    row = validator.evaluate(record, {"revised_code": original})
    assert row.suppressions_added == 0
    assert row.metrics is not None and row.metrics.new_messages_count == 0


def test_an_unfenced_answer_that_does_not_compile_is_an_extraction_failure(validator: Validator) -> None:
    record = _first("cpp")
    row = validator.evaluate(record, {"raw_response": "I have removed the alerts; the program is now {clean}."})
    assert row.verdict == Verdict.EXTRACTION_FAILED and row.extraction_ok is False
    assert row.validation_error.startswith("extraction_failed: no_code_block")
    assert row.pass_at_1 is False and row.metrics is None


def test_an_unfenced_program_is_judged_byte_for_byte(validator: Validator) -> None:
    record = _first("py3")
    answer = record.code.rstrip("\n")  # no final newline: pylint's missing-final-newline must stay
    row = validator.evaluate(record, {"raw_response": answer})
    assert row.revised_code == answer and row.verdict == Verdict.PASSED
    assert "missing-final-newline" in {m.check_name for m in row.revised_messages}


def test_each_row_records_its_agreement_with_the_recorded_alerts(validator: Validator) -> None:
    record = _first("java")
    row = validator.evaluate(record, {"revised_code": record.code})
    assert row.lint_agreement is not None
    assert row.lint_agreement.recorded == len(record.linter_messages) == row.lint_agreement.matched
    assert row.lint_agreement.exact


def test_timings_are_each_rows_own_not_a_share_of_the_batch(validator: Validator) -> None:
    record = _first("py3")
    rows = [{**InputRow.of(record, 0).model_dump(), "raw_response": "Sorry, no code this time."},
            {**InputRow.of(record, 1).model_dump(), "revised_code": record.code}]
    unextracted, passed = validator.evaluate_batch(rows)
    assert unextracted.verdict == Verdict.EXTRACTION_FAILED and passed.verdict == Verdict.PASSED
    for row in (unextracted, passed):
        t = row.timings
        assert t.total_s == pytest.approx(t.lint_s + t.prepare_s + t.compile_s + t.tests_s)
    # Never compiled nor run: its time is its lint alone (the original's, cached after the first row).
    assert (unextracted.timings.compile_s, unextracted.timings.tests_s, unextracted.timings.prepare_s) == (0, 0, 0)
    assert passed.timings.tests_s > 0 and passed.timings.total_s > unextracted.timings.total_s
    assert passed.first_failure is None and unextracted.first_failure is None
