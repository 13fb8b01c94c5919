"""The CodeContests-O loader on splits written in the dataset's layout (tests/tasks/codecontests_o/rows.py):
what it reads of a file, the records it makes, the rows it refuses, the limits it finds, and the
split's identity from what the store states."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from linteval_ray.config import ConfigError, RunConfig, StorageConfig, load_config
from linteval_ray.load.errors import SourceError
from linteval_ray.load.identity import stated_identity
from linteval_ray.load.presets import preset_task, resolve_source
from linteval_ray.load.readers import parquet_rows
from linteval_ray.load.split import split_columns, split_files
from linteval_ray.pipeline.dataset import resolved, task_of_split
from linteval_ray.pipeline.inputs import LocalInputs, load_local_inputs
from linteval_ray.schema.bundled import bundled_path
from linteval_ray.store import FAST_FAIL, ObjectStore
from linteval_ray.tasks.codecontests_o.record import COLUMNS, CodeContestsRecord
from linteval_ray.tasks.codecontests_o.tests import given_problem
from linteval_ray.validate.cache import ContentCache, default_cache_dir
from tests.tasks.codecontests_o.rows import card_schema, problem, sum_problem, write_jsonl, write_split


def config_of(source: str, *overrides: str) -> RunConfig:
    return resolved(load_config(None, [f"dataset.source={json.dumps(source)}",
                                       "generation.replay.predictions=none.jsonl", *overrides]))


def loaded(source: str, *overrides: str) -> tuple[list[CodeContestsRecord], LocalInputs]:
    inputs = load_local_inputs(config_of(source, *overrides))
    records = [CodeContestsRecord.model_validate_json(row["record_json"]) for row in inputs.rows]
    return records, inputs


class CountingFile(io.RawIOBase):
    """A file that counts the bytes read from it."""

    def __init__(self, path: Path) -> None:
        self._file = path.open("rb")
        self.read_bytes = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = 0) -> int:
        return self._file.seek(offset, whence)

    def tell(self) -> int:
        return self._file.tell()

    def readinto(self, buffer: Any) -> int:
        count = self._file.readinto(buffer)
        self.read_bytes += count or 0
        return count or 0


def test_a_split_in_the_datasets_layout_loads_each_problem_once_per_language(tmp_path: Path) -> None:
    rows = [sum_problem(f"100{i}_A. Problem {i}", count=2 + i, checker="" if i % 2 else "int main() {}")
            for i in range(5)]
    url = write_split(tmp_path, rows, files=3)
    assert [Path(f).name for f in split_files(url, ObjectStore())] == [
        "test-00000-of-00003.parquet", "test-00001-of-00003.parquet", "test-00002-of-00003.parquet"]
    records, inputs = loaded(url, 'dataset.languages=["cpp","java"]', "generation.n=2")

    assert inputs.invalid == []
    assert [r.sample_id for r in records[::2]] == [f"100{i}_A. Problem {i}/{lang}" for i in range(5)
                                                  for lang in ("cpp", "java")]
    assert [row["draw"] for row in inputs.rows[:2]] == [0, 1]
    first = records[0]
    assert (first.task, first.problem_id, first.title, first.tests) == ("codecontests-o", "1000_A. Problem 0",
                                                                         "Problem 0", 2)
    assert first.checker == "int main() {}" and records[4].checker is None  # an empty checker is none
    assert (first.time_limit_s, records[1].time_limit_s, first.memory_mb, first.limits_from) == (
        2.0, 2.0, 256, "default policy")  # C++ and its second draw; the default policy
    assert next(r for r in records if r.language == "java").time_limit_s == 4.0  # Java's factor 2
    assert "corner_cases" not in inputs.rows[0]["record_json"]  # rows carry the tests' key, never the tests
    # The read stored each problem's tests once, where a worker finds them by the key.
    cache = ContentCache(None, default_cache_dir() / "cache")
    tests = given_problem(first.tests_key, checker=_any_program(), cache=cache)
    assert [(tests.tests.input_path(n).read_text(), tests.reference.answer_path(n).read_text())
            for n in tests.tests.names] == [("0 1\n", "1\n"), ("1 2\n", "3\n")]


def _any_program() -> Any:
    from linteval_ray.validate.judge.compile import CompiledProgram

    return CompiledProgram(language="cpp", artifact_dir=Path("/nonexistent"), entry="prog", tools={})


def test_only_the_needed_columns_are_read_a_row_at_a_time(tmp_path: Path) -> None:
    history = 4 << 20  # the iteration history: most of a real row's bytes
    path = Path(write_split(tmp_path, [sum_problem(f"P{i}", history_bytes=history) for i in range(3)],
                            row_group_rows=3).replace("*", "00000-of-00001"))
    counting = CountingFile(path)
    rows = [row for _, row in parquet_rows(str(path), pa.PythonFile(counting), COLUMNS)]

    assert [row["name"] for row in rows] == ["P0", "P1", "P2"]
    assert set(rows[0]) == {"name", "description", "corner_cases", "checker"}  # those of COLUMNS the file has
    assert path.stat().st_size > 3 * history  # the history is in the file ...
    assert counting.read_bytes < path.stat().st_size // 50, counting.read_bytes  # ... and never read


@pytest.mark.parametrize("bad, field, words", [
    ({"corner_cases": []}, "corner_cases", "no tests"),
    ({"corner_cases": [{"input": {"stdin": "1"}}]}, "corner_cases.0.output", "Field required"),
    ({"corner_cases": "1 2"}, "corner_cases", "valid list"),
    ({"description": None}, "description", "valid string"),
    ({"description": "x" * (600 << 10)}, "description", "above task.options.max_statement_kb (512 KB)"),
    ({"checker": "y" * (2 << 20)}, "checker", "above task.options.max_checker_kb"),
])
def test_a_row_that_cannot_be_judged_is_an_invalid_row_naming_the_problem_and_the_field(
        tmp_path: Path, bad: dict[str, Any], field: str, words: str) -> None:
    rows = [sum_problem("Good"), {**sum_problem("Broken"), **bad}, sum_problem("Also good")]
    url = write_jsonl(tmp_path / "split.jsonl", rows)
    records, inputs = loaded(url, 'dataset.languages=["cpp","py3"]')

    assert [r.sample_id for r in records] == ["Good/cpp", "Good/py3", "Also good/cpp", "Also good/py3"]
    assert [row.sample_id for row in inputs.invalid] == ["Broken/cpp", "Broken/py3"]
    error = inputs.invalid[0].error or ""
    assert error.startswith(f"row 2: field '{field}': problem 'Broken': ") and words in error, error


def test_tests_past_the_cap_are_an_invalid_row(tmp_path: Path) -> None:
    big = "9" * (1 << 20)
    url = write_jsonl(tmp_path / "split.jsonl", [problem("Huge", [(big, big)] * 2), sum_problem("Small")])
    records, inputs = loaded(url, "task.options.max_tests_mb=3")
    assert [r.sample_id for r in records] == ["Small/cpp"]
    assert [row.error for row in inputs.invalid] == [
        "row 1: field 'corner_cases': problem 'Huge': more than 3 MB of tests, above task.options.max_tests_mb"]


def test_a_100_mb_row_within_the_cap_loads_and_its_tests_are_stored_once(tmp_path: Path) -> None:
    big = "9" * (50 << 20)  # one 50 MB input and its answer: a 100 MB row
    url = write_jsonl(tmp_path / "split.jsonl", [problem("Huge", [(big, big)]), sum_problem("Small")])
    records, inputs = loaded(url, "generation.n=3")  # the default cap (1024 MB) holds it
    assert inputs.invalid == [] and [r.sample_id for r in records[::3]] == ["Huge/cpp", "Small/cpp"]
    assert max(len(row["record_json"]) for row in inputs.rows) < 10_000  # every row and draw: the key, not the tests
    folder = ContentCache(None, default_cache_dir() / "cache").get_dir(records[0].tests_key)
    assert folder is not None and (folder / "000.in").stat().st_size == 50 << 20


def test_limits_come_from_the_row_then_the_side_table_then_the_policy(tmp_path: Path) -> None:
    rows = [{**sum_problem("Stated"), "time_limit": {"seconds": 3, "nanos": 500000000}, "memory_limit_bytes": 64 << 20},
            sum_problem("Listed"), sum_problem("Unknown")]
    split = write_jsonl(tmp_path / "split.jsonl", rows)
    side = pa.table({"name": ["Listed", "Stated"],
                     "time_limit": [{"seconds": 1, "nanos": 0}, {"seconds": 9, "nanos": 0}],
                     "memory_limit_bytes": [128 << 20, 1 << 30], "difficulty": [8, 7], "source": [2, 1],
                     "cf_rating": [1600, 800], "solutions": ["lots of code", "never read"]})
    pq.write_table(side, tmp_path / "limits.parquet")
    records, _ = loaded(split, f"task.options.limits_url={json.dumps(str(tmp_path / 'limits.parquet'))}",
                        'dataset.languages=["cpp","py3"]')

    facts = {r.sample_id: (r.time_limit_s, r.memory_mb, r.limits_from, r.facets) for r in records}
    assert facts["Stated/cpp"] == (3.5, 64, "row", {"difficulty": "A", "source": "CODECHEF", "cf_rating": "800"})
    assert facts["Stated/py3"][0] == 10.5  # Python's factor 3
    assert facts["Listed/cpp"] == (1.0, 128, "side table",
                                   {"difficulty": "B", "source": "CODEFORCES", "cf_rating": "1600"})
    assert facts["Unknown/cpp"] == (2.0, 256, "default policy", {})


def test_a_bad_side_table_fails_the_read_naming_the_file_row_and_field(tmp_path: Path) -> None:
    split = write_jsonl(tmp_path / "split.jsonl", [sum_problem("P")])
    table = write_jsonl(tmp_path / "limits.jsonl", [{"name": "P", "time_limit": "fast"}])
    with pytest.raises(Exception, match=r"limits table .*limits.jsonl: row 1: field 'time_limit'"):
        loaded(split, f"task.options.limits_url={json.dumps(table)}")


def test_filters_duplicates_and_the_limit_work_on_samples(tmp_path: Path) -> None:
    rows = [sum_problem("A"), sum_problem("B"), sum_problem("A"), sum_problem("C")]
    url = write_jsonl(tmp_path / "split.jsonl", rows)

    records, inputs = loaded(url)
    assert [r.sample_id for r in records] == ["A/cpp", "B/cpp", "C/cpp"]
    assert [(row.sample_id, row.error) for row in inputs.invalid] == [
        ("A/cpp#row-3", "row 3 (sample A/cpp): field 'name': duplicate problem name (first seen at row 1)")]
    assert [r.sample_id for r in loaded(url, 'dataset.problem_ids=["B","C"]')[0]] == ["B/cpp", "C/cpp"]
    assert [r.sample_id for r in loaded(url, 'dataset.sample_ids=["C/py3"]', 'dataset.languages=["cpp","py3"]')[0]
            ] == ["C/py3"]
    assert [r.sample_id for r in loaded(url, "dataset.limit=2")[0]] == ["A/cpp", "B/cpp"]


def test_the_task_comes_from_the_setting_the_preset_or_the_columns(tmp_path: Path) -> None:
    parquet = write_split(tmp_path, [sum_problem("P")])
    late_keys = tmp_path / "late.jsonl"  # a first line whose keys come after 3 MB of statement
    late_keys.write_text(json.dumps({"description": "z" * (3 << 20), "name": "P", "corner_cases": []}) + "\n")
    store = ObjectStore()

    assert task_of_split(parquet, store) == "codecontests-o"
    assert task_of_split(str(late_keys), store) == "codecontests-o"
    assert task_of_split(str(bundled_path()), store) == "linteval"
    assert split_columns(parquet, store) == frozenset(card_schema().names)
    other = write_jsonl(tmp_path / "other.jsonl", [{"question": "?", "answer": 1}])
    with pytest.raises(ConfigError, match=r"no task recognise its columns \(answer, question\): set task.name"):
        task_of_split(other, store)
    assert preset_task("codecontests-o:test") == "codecontests-o" and preset_task("lite") == "linteval"
    assert resolve_source("codecontests-o:test") == "hf://datasets/caijanfeng/CodeContests-O/data/test-*.parquet"
    chosen = config_of(other, "task=codecontests-o")  # the setting wins over the columns
    assert (chosen.task.name, chosen.generation.prompt_version) == ("codecontests-o", "codecontests-o/v1")


def test_a_store_that_does_not_answer_is_one_named_error() -> None:
    store = ObjectStore(storage=StorageConfig(endpoint_url="http://127.0.0.1:9", key="k", secret="s"), retry=FAST_FAIL)
    with pytest.raises(SourceError, match=r"^cannot list s3://nowhere/data/test-\*.parquet: "):
        split_files("s3://nowhere/data/test-*.parquet", store)
    with pytest.raises(SourceError, match=r"^cannot open s3://nowhere/data/test-00000-of-00001.parquet: "):
        stated_identity(["s3://nowhere/data/test-00000-of-00001.parquet"], store)


def test_identity_comes_from_sizes_and_footers_and_follows_the_data_not_its_place(tmp_path: Path) -> None:
    url = write_split(tmp_path / "a", [sum_problem(f"P{i}", history_bytes=1 << 20) for i in range(4)], files=2)
    files = split_files(url, ObjectStore())
    identity = stated_identity(files, ObjectStore())

    assert identity.rows == 4 and [entry["rows"] for entry in identity.files] == [2, 2]
    assert all(set(entry) == {"file", "size", "footer_sha256", "rows"} for entry in identity.files)
    assert "footer" in identity.hashed
    moved = tmp_path / "b"
    shutil.copytree(tmp_path / "a", moved)
    assert stated_identity(split_files(str(moved / "data" / "test-*.parquet"), ObjectStore()), ObjectStore()
                           ).sha256 == identity.sha256
    write_split(tmp_path / "a", [sum_problem(f"P{i}", count=3 + (i == 3), history_bytes=1 << 20)
                                 for i in range(4)], files=2)  # one more test in the last problem
    assert stated_identity(files, ObjectStore()).sha256 != identity.sha256
