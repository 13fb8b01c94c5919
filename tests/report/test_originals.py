"""The originals read back from a JSONL split by msgspec (the shown fields alone) are the ones the
stdlib's parse of every line gives, on plain lines and on the lines msgspec refuses."""

from __future__ import annotations

import json
from pathlib import Path

from linteval_ray.reduce.reduce import reduce_run
from linteval_ray.report.originals import Original, originals_of_run
from linteval_ray.schema.bundled import bundled_path
from tests.report.test_publish import run_folder


def awkward_split(path: Path) -> list[str]:
    """The run's four evaluated samples, each line written to trip a different decoder path; returns the lines."""
    bundled = {row["sample_id"]: row for row in map(json.loads, bundled_path().read_text().splitlines())}
    plain, surrogate, nan, repeated = (bundled[s] for s in ("lr03_py3_0", "lr01_cpp_0", "lr02_java_0", "lr02_py3_1"))
    lines = [
        json.dumps(plain, ensure_ascii=False),  # non-ASCII text as UTF-8
        json.dumps(surrogate | {"code": surrogate["code"] + "// \ud800\n"}),  # a lone surrogate: msgspec refuses it
        json.dumps(nan | {"extra": float("nan")}),  # NaN: the stdlib reads it, msgspec does not
        "[1, 2]",  # not an object
        "{not json",
        json.dumps(repeated | {"title": "first"}),
        json.dumps(repeated | {"title": "second"}),  # a later record of a sample id: not shown
        json.dumps({"sample_id": "lr03_py3_0", "problem_id": 3}),  # another type: refused, and a repeat
    ]
    path.write_text("\n".join(lines) + "\n")
    return lines


def stdlib_originals(lines: list[str], wanted: set[str], with_alerts: bool) -> list[Original]:
    """What the report read before msgspec: every line parsed by the stdlib."""
    originals = []
    for line in lines:
        try:
            raw = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(raw, dict) and raw.get("sample_id") in wanted:
            wanted.discard(raw["sample_id"])
            originals.append(Original.of_raw(raw, with_alerts))
    return originals


def comparable(original: Original) -> tuple[Original, object]:
    """The alerts as models: their JSON text is the line's (msgspec) or json.dumps' (stdlib)."""
    return original._replace(alerts_json=None), original.linter_messages if original.alerts_json else None


def test_msgspec_and_stdlib_read_the_same_originals(tmp_path: Path) -> None:
    split = tmp_path / "split.jsonl"
    lines = awkward_split(split)
    folder = run_folder(tmp_path, "run", split)
    results = reduce_run(folder).results
    for with_alerts in (True, False):
        read = list(originals_of_run(folder, results, with_alerts=with_alerts))
        expected = stdlib_originals(lines, {"lr01_cpp_0", "lr02_java_0", "lr02_py3_1", "lr03_py3_0"}, with_alerts)
        assert [comparable(o) for o in read] == [comparable(o) for o in expected]
        assert [o.sample_id for o in read] == ["lr03_py3_0", "lr01_cpp_0", "lr02_java_0", "lr02_py3_1"]
        assert read[1].code.endswith("\ud800\n") and read[3].title == "first"
