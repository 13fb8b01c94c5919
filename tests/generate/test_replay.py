"""Replay: recorded predictions attach to prompt rows; untrusted text never breaks a run."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest

from linteval_ray.generate.replay import ReplayBackend, load_predictions


def _write(path: Path, lines: list[str]) -> str:
    path.write_text("".join(line + "\n" for line in lines))
    return str(path)


def test_undecodable_model_output_is_kept_as_replacement_characters(tmp_path: Path) -> None:
    # json.dumps escapes lone surrogates ("\udcff"): valid JSON, not valid text.
    url = _write(tmp_path / "p.jsonl", [json.dumps({"sample_id": "s1", "revised_code": "x = 1  # \udcff\udcfe",
                                                    "raw_response": "```python\n\udce9\n```"})])
    [prediction] = load_predictions(url)
    assert prediction.revised_code == "x = 1  # \ufffd\ufffd"
    assert prediction.raw_response == "```python\n\ufffd\n```"
    prediction.model_dump_json()  # serializable from here on


def test_a_malformed_line_names_its_line_number(tmp_path: Path) -> None:
    url = _write(tmp_path / "p.jsonl", [json.dumps({"sample_id": "s1", "revised_code": "x"}), "",
                                        json.dumps({"sample_id": "s2", "draw": "first"})])
    with pytest.raises(ValueError, match=r"p\.jsonl: line 3: field 'draw': Input should be a valid integer"):
        load_predictions(url)


def test_each_row_gets_its_draws_prediction_or_a_named_generation_error(tmp_path: Path) -> None:
    url = _write(tmp_path / "p.jsonl", [json.dumps({"sample_id": "s1", "draw": 1, "revised_code": "y = 2",
                                                    "model": "m-7b"})])
    replay = ReplayBackend(load_predictions(url), model="predictions").stage().in_process()
    table = pa.Table.from_pylist([{"sample_id": "s1", "draw": 1, "record_json": "{}"},
                                  {"sample_id": "s1", "draw": 0, "record_json": "{}"}])

    rows = replay(table).to_pylist()

    assert (rows[0]["revised_code"], rows[0]["model"], rows[0]["generation_error"]) == ("y = 2", "m-7b", None)
    assert rows[1]["revised_code"] is None
    assert rows[1]["generation_error"] == "no prediction for sample s1 draw 0"
