from __future__ import annotations

import gzip
from pathlib import Path

import pyarrow as pa
import pytest

from linteval_ray.load import MalformedRow, SourceError, detect_format, iter_rows
from tests.load.rows import jsonl_lines, make_row, write_jsonl


def test_rows_are_numbered_by_line_and_blank_lines_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text(jsonl_lines([make_row(1)]) + "\n   \n" + jsonl_lines([make_row(2), "{oops", "[1, 2]"]))

    rows = list(iter_rows(str(path)))

    assert [number for number, _ in rows] == [1, 4, 5, 6]
    assert rows[0][1]["sample_id"] == "1001_A_py3_0"
    assert rows[1][1]["sample_id"] == "1002_A_py3_0"
    assert isinstance(rows[2][1], MalformedRow) and rows[2][1].message.startswith("invalid JSON")
    assert isinstance(rows[3][1], MalformedRow) and rows[3][1].message == "expected a JSON object, got an array"


def test_invalid_utf8_is_a_row_error(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_bytes(b'{"sample_id": "\xff\xfe"}\n' + jsonl_lines([make_row(1)]).encode())

    rows = list(iter_rows(str(path)))

    assert isinstance(rows[0][1], MalformedRow) and "UTF-8" in rows[0][1].message
    assert rows[1][1]["sample_id"] == "1001_A_py3_0"


def test_reading_streams_so_a_corrupt_tail_only_fails_when_reached(tmp_path: Path) -> None:
    body = gzip.compress(jsonl_lines([make_row(i) for i in range(2000)]).encode())
    path = tmp_path / "in.jsonl.gz"
    path.write_bytes(body[: len(body) // 2])  # truncated download

    rows = iter_rows(str(path))
    first = [next(rows) for _ in range(3)]
    assert [row["sample_id"] for _, row in first] == ["1000_A_py3_0", "1001_A_py3_0", "1002_A_py3_0"]
    with pytest.raises(SourceError, match=r"reading .*in\.jsonl\.gz failed after row \d+"):
        list(rows)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("a.jsonl", "jsonl"),
        ("s3://b/x/a.JSONL.gz", "jsonl"),
        ("a.ndjson.zst", "jsonl"),
        ("hf://datasets/o/r/a.json", "jsonl"),
        ("a.parquet", "parquet"),
        ("a.pq", "parquet"),
    ],
)
def test_format_comes_from_the_name(name: str, expected: str) -> None:
    assert detect_format(name) == expected


@pytest.mark.parametrize("name", ["a.csv", "a.parquet.gz", "folder/"])
def test_unknown_formats_are_refused_with_the_name(name: str) -> None:
    with pytest.raises(SourceError, match=r"a\.csv|Parquet compresses|unknown format"):
        detect_format(name)


def test_zstd_files_decompress_without_extra_packages(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl.zst"
    with pa.CompressedOutputStream(str(path), "zstd") as out:
        out.write(jsonl_lines([make_row(1), make_row(2)]).encode())

    assert [row["sample_id"] for _, row in iter_rows(str(path))] == ["1001_A_py3_0", "1002_A_py3_0"]


def test_missing_file_is_a_source_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "nope.jsonl"
    with pytest.raises(SourceError, match=r"cannot open .*nope\.jsonl: no such file"):
        list(iter_rows(str(missing)))


def test_file_that_is_not_parquet_is_a_source_error(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "fake.parquet", [make_row(1)])
    with pytest.raises(SourceError, match=r"cannot read .*fake\.parquet as Parquet"):
        list(iter_rows(str(path)))
