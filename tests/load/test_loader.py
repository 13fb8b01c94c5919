from __future__ import annotations

import gzip
import io
from pathlib import Path
from typing import Any

import huggingface_hub.constants
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from linteval_ray.config import DatasetConfig
from linteval_ray.load import MalformedRow, SourceError, load_split, validate_row
from linteval_ray.schema import LintEvalRecord, LintMessage
from linteval_ray.store import FAST_FAIL, ObjectStore
from linteval_ray.validate.judge.commands import parse_generator_cmd
from tests.fixtures.s3 import SeaweedServer
from tests.load.rows import jsonl_lines, make_row, write_jsonl

# Rows 1..10 of a file with one of each malformation; good rows are 1, 2, 4, 9, 10.
MIXED_ROWS: list[Any] = [
    make_row(1),
    make_row(2, "cpp"),
    {k: v for k, v in make_row(3).items() if k != "code"},  # missing field
    make_row(4, "java"),
    make_row(5, linter_message_count="many"),  # wrong type
    "{not json",  # invalid JSON
    make_row(36, language="rust", sample_id="1036_A_py3_0"),  # unknown language
    '["a", "list"]',  # JSON, but not an object
    make_row(9),
    make_row(10, "cpp", extra_column="kept"),
]
MIXED_ROWS.append(make_row(2, "cpp", title="again"))  # row 11: duplicate sample_id

EXPECTED_GOOD = ["1001_A_py3_0", "1002_A_cpp_0", "1004_A_java_0", "1009_A_py3_0", "1010_A_cpp_0"]
EXPECTED_ERRORS = [
    "row 3 (sample 1003_A_py3_0): field 'code': Field required",
    "row 5 (sample 1005_A_py3_0): field 'linter_message_count': "
    "Input should be a valid integer, unable to parse string as an integer",
    "row 6: invalid JSON: Expecting property name enclosed in double quotes at column 2",
    "row 7 (sample 1036_A_py3_0): field 'language': Input should be 'cpp', 'py3' or 'java'",
    "row 8: expected a JSON object, got an array",
    "row 11 (sample 1002_A_cpp_0): field 'sample_id': duplicate sample_id (first seen at row 2)",
]


def _sample_ids(records: list[LintEvalRecord]) -> list[str]:
    return [record.sample_id for record in records]


def _parquet_bytes(rows: list[dict[str, Any]]) -> bytes:
    sink = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(rows), sink)
    return sink.getvalue()


def test_good_rows_load_and_each_bad_row_is_one_named_error(tmp_path: Path) -> None:
    result = load_split(str(write_jsonl(tmp_path / "mixed.jsonl", MIXED_ROWS)))

    assert _sample_ids(result.records) == EXPECTED_GOOD
    assert [str(error) for error in result.errors] == EXPECTED_ERRORS


def test_records_keep_nested_messages_and_unknown_columns(tmp_path: Path) -> None:
    result = load_split(str(write_jsonl(tmp_path / "mixed.jsonl", MIXED_ROWS)))

    last = result.records[-1]
    assert last.model_extra == {"extra_column": "kept"}
    assert last.linter_messages == [
        LintMessage(
            tool="pylint",
            file="/tmp/tmpoo6s9mac.py",
            line=2,
            message_text="Final newline missing",
            check_name="missing-final-newline",
            category="readability",
        )
    ]
    assert [c.command for c in parse_generator_cmd(last.generator_cmd)] == ["./gen -n 5", "./gen -n 10"]


def test_errors_carry_structured_fields(tmp_path: Path) -> None:
    result = load_split(str(write_jsonl(tmp_path / "mixed.jsonl", MIXED_ROWS)))

    unknown_language = result.errors[3]
    assert unknown_language == MalformedRow(
        row_number=7,
        sample_id="1036_A_py3_0",
        field="language",
        message="Input should be 'cpp', 'py3' or 'java'",
    )


def test_a_row_with_several_problems_is_still_one_error() -> None:
    raw = make_row(1, language="go", code="")
    del raw["checker"]

    error = validate_row(4, raw)

    assert isinstance(error, MalformedRow)
    assert str(error) == (
        "row 4 (sample 1001_A_go_0): field 'language': Input should be 'cpp', 'py3' or 'java' "
        "(also field 'code': String should have at least 1 character; field 'checker': Field required)"
    )


def test_nested_field_errors_name_the_path() -> None:
    raw = make_row(1)
    raw["linter_messages"][0]["line"] = "first"
    error = validate_row(1, raw)
    assert isinstance(error, MalformedRow)
    assert error.field == "linter_messages.0.line"


def test_text_with_lone_surrogates_is_a_named_error_not_a_crash(tmp_path: Path) -> None:
    # json.dumps writes lone surrogates as "\\udcff" escapes: valid JSON, but no UTF-8 text.
    in_code = make_row(1, code="print(1)  # \udcff")
    in_message = make_row(2)
    in_message["linter_messages"][0]["message_text"] = "bad \udce9"
    in_extra = make_row(3, notes=["fine", "x\udcfe"])
    result = load_split(str(write_jsonl(tmp_path / "bytes.jsonl", [in_code, in_message, in_extra, make_row(4)])))

    assert _sample_ids(result.records) == ["1004_A_py3_0"]
    assert [(e.sample_id, e.field) for e in result.errors[:2]] == [
        ("1001_A_py3_0", "code"), ("1002_A_py3_0", "linter_messages.0.message_text")]
    assert "lone surrogate U+DCE9" in result.errors[1].message
    assert "field 'notes'" in str(result.errors[2]) and "U+DCFE" in str(result.errors[2])


def test_parquet_loads_the_same_rows_with_the_same_errors(tmp_path: Path) -> None:
    rows = [make_row(1), make_row(2, "cpp"), make_row(3, language="rust"), make_row(1, title="dup")]
    path = tmp_path / "split.parquet"
    path.write_bytes(_parquet_bytes(rows))

    result = load_split(str(path))

    assert _sample_ids(result.records) == ["1001_A_py3_0", "1002_A_cpp_0"]
    assert result.records[1].linter_messages[0].check_name == "missing-final-newline"
    assert [str(error) for error in result.errors] == [
        "row 3 (sample 1003_A_rust_0): field 'language': Input should be 'cpp', 'py3' or 'java'",
        "row 4 (sample 1001_A_py3_0): field 'sample_id': duplicate sample_id (first seen at row 1)",
    ]


def test_gzip_jsonl_loads_like_plain(tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl.gz"
    path.write_bytes(gzip.compress(jsonl_lines(MIXED_ROWS).encode()))

    result = load_split(f"file://{path}")

    assert _sample_ids(result.records) == EXPECTED_GOOD
    assert [str(error) for error in result.errors] == EXPECTED_ERRORS


def test_language_filter_keeps_only_those_languages(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "mixed.jsonl", MIXED_ROWS)

    result = load_split(str(path), DatasetConfig(languages=["cpp", "java"]))

    assert _sample_ids(result.records) == ["1002_A_cpp_0", "1004_A_java_0", "1010_A_cpp_0"]
    # Rows of other languages are not reported; unparsable rows and the cpp duplicate are.
    assert [error.row_number for error in result.errors] == [6, 8, 11]


def test_sample_and_problem_filters(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "mixed.jsonl", MIXED_ROWS)

    by_sample = load_split(str(path), DatasetConfig(sample_ids=["1009_A_py3_0", "1001_A_py3_0", "9999_Z_py3_0"]))
    by_problem = load_split(str(path), DatasetConfig(problem_ids=["1004_A", "1010_A"]))

    assert _sample_ids(by_sample.records) == ["1001_A_py3_0", "1009_A_py3_0"]
    assert _sample_ids(by_problem.records) == ["1004_A_java_0", "1010_A_cpp_0"]


def test_limit_counts_kept_rows_after_filters(tmp_path: Path) -> None:
    rows = [make_row(i, "py3") for i in range(5)] + [make_row(i, "cpp") for i in range(5, 10)]
    path = write_jsonl(tmp_path / "in.jsonl", rows)

    result = load_split(str(path), DatasetConfig(languages=["cpp"], limit=3))

    assert _sample_ids(result.records) == ["1005_A_cpp_0", "1006_A_cpp_0", "1007_A_cpp_0"]


def test_limit_does_not_count_bad_rows(tmp_path: Path) -> None:
    result = load_split(str(write_jsonl(tmp_path / "mixed.jsonl", MIXED_ROWS)), DatasetConfig(limit=4))

    assert _sample_ids(result.records) == EXPECTED_GOOD[:4]
    assert [error.row_number for error in result.errors] == [3, 5, 6, 7, 8]


def test_limit_stops_reading_early(tmp_path: Path) -> None:
    body = gzip.compress(jsonl_lines([make_row(i) for i in range(3000)]).encode())
    path = tmp_path / "big.jsonl.gz"
    path.write_bytes(body[: len(body) // 2])  # the tail is corrupt; a limited load never reaches it

    assert len(load_split(str(path), DatasetConfig(limit=10)).records) == 10
    with pytest.raises(SourceError):
        load_split(str(path))


def test_missing_source_raises_with_its_path(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match=r"missing\.jsonl: no such file"):
        load_split(str(tmp_path / "missing.jsonl"))


def test_unreachable_hub_preset_is_a_clear_source_error(monkeypatch: pytest.MonkeyPatch) -> None:
    # Point the Hub client at a closed local port so the test does not depend on
    # whether this machine can reach huggingface.co.
    monkeypatch.setattr(huggingface_hub.constants, "ENDPOINT", "http://127.0.0.1:9")

    with pytest.raises(SourceError, match=r"cannot open hf://datasets/deepbreath7/LintEval/lite/demo_100\.jsonl: \w+"):
        load_split("demo", retry=FAST_FAIL)


def test_loads_from_s3_with_endpoint_from_storage_config(s3_server: SeaweedServer, s3_bucket: str) -> None:
    storage = s3_server.storage_config()
    store = ObjectStore(storage=storage)
    store.write_atomic(f"{s3_bucket}/in/mixed.jsonl.gz", gzip.compress(jsonl_lines(MIXED_ROWS).encode()))
    store.write_atomic(f"{s3_bucket}/in/split.parquet", _parquet_bytes([make_row(1), make_row(2, "java")]))

    jsonl = load_split(f"{s3_bucket}/in/mixed.jsonl.gz", DatasetConfig(), storage, retry=FAST_FAIL)
    parquet = load_split(f"{s3_bucket}/in/split.parquet", None, storage, retry=FAST_FAIL)

    assert _sample_ids(jsonl.records) == EXPECTED_GOOD
    assert [str(error) for error in jsonl.errors] == EXPECTED_ERRORS
    assert _sample_ids(parquet.records) == ["1001_A_py3_0", "1002_A_java_0"]


def test_loads_from_s3_with_endpoint_and_keys_from_aws_env(
    s3_server: SeaweedServer, s3_bucket: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ObjectStore(storage=s3_server.storage_config())
    store.write_atomic(f"{s3_bucket}/mixed.jsonl", jsonl_lines(MIXED_ROWS).encode())
    s3_server.s3_env(monkeypatch)

    result = load_split(f"{s3_bucket}/mixed.jsonl", DatasetConfig(languages=["py3"]), retry=FAST_FAIL)

    assert _sample_ids(result.records) == ["1001_A_py3_0", "1009_A_py3_0"]


def test_missing_s3_object_is_a_source_error(s3_server: SeaweedServer, s3_bucket: str) -> None:
    with pytest.raises(SourceError, match=r"cannot open s3://.*/absent\.jsonl"):
        load_split(f"{s3_bucket}/absent.jsonl", None, s3_server.storage_config(), retry=FAST_FAIL)


def test_wrong_s3_secret_is_a_source_error(s3_server: SeaweedServer, s3_bucket: str) -> None:
    storage = s3_server.storage_config()
    ObjectStore(storage=storage).write_atomic(f"{s3_bucket}/a.jsonl", jsonl_lines([make_row(1)]).encode())
    wrong = storage.model_copy(update={"secret": "not-the-secret"})

    with pytest.raises(SourceError, match=r"s3://.*/a\.jsonl"):
        load_split(f"{s3_bucket}/a.jsonl", None, wrong, retry=FAST_FAIL)
