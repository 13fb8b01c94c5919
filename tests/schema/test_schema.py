"""Records keep unknown fields; result rows round-trip through the one Arrow schema."""

from __future__ import annotations

import pyarrow as pa
import pytest
from pydantic import ValidationError

from linteval_ray.schema import FirstFailure, LintEvalRecord, LintMessage, ResultRow, SampleMetrics, Status, Verdict
from linteval_ray.schema.arrow import result_schema, rows_to_table, table_to_rows

RECORD = {
    "sample_id": "1036_A_py3_0", "problem_id": "1036_A", "language": "py3", "code": "print(1)",
    "generator": "g", "generator_cmd": "./gen -n 1\n\n# comment\n./gen -n 2   # trailing\n",
    "checker": "c", "validator": "v",
}


def test_extra_fields_are_kept_not_dropped():
    record = LintEvalRecord.model_validate(RECORD | {"future_field": {"x": 1}})
    assert record.model_dump()["future_field"] == {"x": 1}


def test_message_identity_defaults_to_check_and_text():
    msg = LintMessage(tool="pylint", line=2, message_text="Final newline missing", check_name="missing-final-newline")
    assert msg.message_identity == "missing-final-newline::Final newline missing"


def test_unknown_language_is_rejected_with_the_field_named():
    with pytest.raises(ValidationError, match="language"):
        LintEvalRecord.model_validate(RECORD | {"language": "rust"})


def test_result_rows_round_trip_through_arrow():
    row = ResultRow(sample_id="s", row_id="s/0", status=Status.EVALUATED, verdict=Verdict.PASSED,
                    pass_at_1=True, metrics=SampleMetrics(original_total_messages=3),
                    original_messages=[LintMessage(tool="t", line=1, message_text="m", check_name="c")])
    table = rows_to_table([row, ResultRow(sample_id="x", row_id="x/0", status=Status.INVALID_INPUT)])
    assert table.schema == result_schema()
    assert table_to_rows(table)[0] == row


def test_first_failure_is_a_typed_struct_column_null_for_other_rows():
    failure = FirstFailure(test_index=2, test_name="002", verdict="runtime_error", generator_line=4,
                           generator_command="./gen -n 3", input_excerpt="3\n1 2 3\n", expected_excerpt="6\n",
                           output_excerpt="", message="Traceback ...", ended="exit 1", exit_code=1, wall_s=0.1,
                           cpu_s=0.05, time_limit_s=2.0, memory_mb=None)
    failing = ResultRow(sample_id="s", row_id="s/0", status=Status.EVALUATED, verdict=Verdict.RUNTIME_ERROR,
                        first_failure=failure)
    passing = ResultRow(sample_id="p", row_id="p/0", status=Status.EVALUATED, verdict=Verdict.PASSED, pass_at_1=True)
    table = rows_to_table([failing, passing])

    column = table.schema.field("first_failure").type
    assert pa.types.is_struct(column) and column.field("memory_mb").type == pa.float64()
    assert column.field("output_truncated").type == pa.bool_()
    assert table.column("first_failure").to_pylist()[1] is None
    assert table_to_rows(table)[0].first_failure == failure
