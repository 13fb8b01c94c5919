"""The split read by Ray Data: every row checked where it is read, exactly as in-process loading
checks it (same records, same named errors, in file order), draws expanded, done rows dropped,
invalid rows written as result rows, for JSONL, gzipped JSONL and Parquet."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from linteval_ray.config import RunConfig, load_config
from linteval_ray.load import SourceError, digest_in_background, load_split, source_digest
from linteval_ray.pipeline.source import LOAD_ERROR, admit_stage, read_inputs
from linteval_ray.store.folder import RunFolder
from linteval_ray.store.fs import ObjectStore
from linteval_ray.store.shards import read_rows
from tests.load.rows import jsonl_lines, make_row, write_jsonl
from tests.load.test_loader import EXPECTED_ERRORS, EXPECTED_GOOD, MIXED_ROWS

pytestmark = pytest.mark.usefixtures("local_ray")


def _config(source: Path, *overrides: str) -> RunConfig:
    return load_config(None, [f"dataset.source={json.dumps(str(source))}", *overrides])


def _streamed(config: RunConfig) -> list[dict[str, Any]]:
    return read_inputs(config, config.dataset.source, ObjectStore()).take_all()


def _errors(rows: list[dict[str, Any]]) -> list[str]:
    return [r[LOAD_ERROR] for r in rows if r[LOAD_ERROR] is not None and r["draw"] == 0]


def test_streamed_rows_are_the_in_process_records_and_errors_in_file_order(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "mixed.jsonl", MIXED_ROWS)
    rows = _streamed(_config(source, "generation.n=2", "validation.pool.batch_size=3"))

    good = [r for r in rows if r[LOAD_ERROR] is None]
    assert [r["row_id"] for r in good] == [f"{s}/{d}" for s in EXPECTED_GOOD for d in (0, 1)]
    assert _errors(rows) == EXPECTED_ERRORS == [str(e) for e in load_split(str(source)).errors]
    assert json.loads(good[-1]["record_json"])["extra_column"] == "kept"
    # the duplicate keeps a row id of its own; the unparsable rows are named by their line
    invalid_ids = {r["sample_id"] for r in rows if r[LOAD_ERROR] is not None}
    assert {"1002_A_cpp_0#row-11", "#row-6", "#row-8", "1003_A_py3_0"} <= invalid_ids


def test_gzip_and_parquet_stream_the_same_rows(tmp_path: Path) -> None:
    gz = tmp_path / "mixed.jsonl.gz"
    gz.write_bytes(gzip.compress(jsonl_lines(MIXED_ROWS).encode()))
    assert _errors(_streamed(_config(gz))) == EXPECTED_ERRORS

    parquet = tmp_path / "split.parquet"
    pq.write_table(pa.Table.from_pylist([make_row(1), make_row(2, "cpp"), make_row(3, language="rust"),
                                         make_row(1, title="dup")]), parquet)
    rows = _streamed(_config(parquet))
    assert [r["sample_id"] for r in rows if r[LOAD_ERROR] is None] == ["1001_A_py3_0", "1002_A_cpp_0"]
    assert _errors(rows) == [str(e) for e in load_split(str(parquet)).errors]


def test_filters_and_limit_apply_in_the_stream(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "mixed.jsonl", MIXED_ROWS)
    rows = _streamed(_config(source, 'dataset.languages=["cpp", "java"]', "dataset.limit=2"))
    assert [r["sample_id"] for r in rows if r[LOAD_ERROR] is None] == ["1002_A_cpp_0", "1004_A_java_0"]


def test_admit_drops_done_rows_and_writes_each_invalid_row_once(tmp_path: Path) -> None:
    import ray

    source = write_jsonl(tmp_path / "mixed.jsonl", MIXED_ROWS)
    config = _config(source, "generation.n=2")
    output = RunFolder.open(str(tmp_path / "out"))
    done = {"1001_A_py3_0/0", "1002_A_cpp_0/1", "#row-6/0"}
    stage = admit_stage(output, ray.put(pa.array(sorted(done))), str(source))

    todo = stage.apply(read_inputs(config, str(source), output.store)).take_all()

    assert sorted(r["row_id"] for r in todo) == sorted(
        {f"{s}/{d}" for s in EXPECTED_GOOD for d in (0, 1)} - done)
    assert set(todo[0]) == {"row_id", "sample_id", "draw", "problem_id", "language", "record_json"}
    written, duplicates = read_rows(output)
    assert duplicates == 0
    assert len(written) == 2 * len(EXPECTED_ERRORS) - 1  # #row-6/0 was done
    assert {r.status for r in written} == {"invalid_input"}
    assert "#row-6/0" not in {r.row_id for r in written}


def test_source_digest_streams_content_and_fails_on_a_corrupt_source(tmp_path: Path) -> None:
    plain = write_jsonl(tmp_path / "in.jsonl", [make_row(i) for i in range(50)])
    gz = tmp_path / "in.jsonl.gz"
    gz.write_bytes(gzip.compress(plain.read_bytes()))
    assert source_digest(str(plain)) == source_digest(str(gz))  # the same rows, compressed or not
    assert source_digest(str(plain)).rows == 50
    parquet = tmp_path / "in.parquet"
    pq.write_table(pa.Table.from_pylist([make_row(i) for i in range(7)]), parquet)
    assert source_digest(str(parquet)).rows == 7
    other = write_jsonl(tmp_path / "other.jsonl", [make_row(i) for i in range(49)])
    assert source_digest(str(other)) != source_digest(str(plain))
    gz.write_bytes(gz.read_bytes()[:200])
    with pytest.raises(SourceError):
        source_digest(str(gz))


def test_the_digest_hashed_while_ray_starts_fails_a_missing_source_at_once_and_a_corrupt_one_when_awaited(
        tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no such file"):  # before the driver starts Ray
        digest_in_background(str(tmp_path / "missing.jsonl"))
    plain = write_jsonl(tmp_path / "in.jsonl", [make_row(i) for i in range(50)])
    assert digest_in_background(str(plain)).result(timeout=60) == source_digest(str(plain))
    gz = tmp_path / "in.jsonl.gz"
    gz.write_bytes(gzip.compress(plain.read_bytes())[:200])
    hashing = digest_in_background(str(gz))  # opens: the corrupt part is further on
    with pytest.raises(SourceError, match="reading"):
        hashing.result(timeout=60)
