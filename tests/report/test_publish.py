"""``publish`` of a finished run folder reads the originals its sample pages show back from the
run's split (raw JSON, not validated again) and writes the same site as from the validated records."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from linteval_ray.load.loader import load_split
from linteval_ray.reduce.reduce import reduce_run
from linteval_ray.report.publish import publish
from linteval_ray.report.sample_view import lines_of
from linteval_ray.schema.bundled import bundled_path
from linteval_ray.store.folder import RunFolder
from linteval_ray.store.manifest import Manifest, write_manifest

RUN = Path(__file__).parents[1] / "reduce" / "data" / "pipeline-run"  # evaluated and invalid_input rows


def split_of_run(path: Path) -> None:
    """The bundled records the run's evaluated rows came from, the invalid rows its invalid_input
    rows name (no_checker holds a program, which must still not be shown) and an unparsable line."""
    bundled = {row["sample_id"]: row for row in map(json.loads, bundled_path().read_text().splitlines())}
    rows = [bundled[s] for s in ("lr01_cpp_0", "lr02_java_0", "lr02_py3_1", "lr03_py3_0")]
    no_checker = {k: v for k, v in bundled["lr01_cpp_0"].items() if k != "checker"} | {"sample_id": "no_checker"}
    bad_lang = bundled["lr02_py3_1"] | {"sample_id": "bad_lang", "language": "cobol"}
    lines = [json.dumps(r) for r in (rows[0], no_checker, bad_lang, *rows[1:])]
    path.write_text("\n".join([*lines[:2], "{not json", *lines[2:]]) + "\n")


def run_folder(tmp: Path, name: str, split: Path) -> RunFolder:
    shutil.copytree(RUN / "shards", tmp / name / "run" / "shards")
    folder = RunFolder.open(str(tmp / name / "run"))
    write_manifest(folder, Manifest(run_name="run", output=folder.url, config={}, fingerprint="-",
                                    dataset_url=str(split), dataset_sha256="-", prompt_version="v1", model="-",
                                    backend="replay", toolchain={}, versions={}, started_at="-"))
    return folder


def site_files(folder: RunFolder) -> dict[str, bytes]:
    site = Path(folder.site)
    return {str(p.relative_to(site)): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def shown_originals(folder: RunFolder) -> dict[str, list[str] | None]:
    shown: dict[str, list[str] | None] = {}
    for chunk in Path(folder.site, "data").glob("rows-*.js"):
        part = json.loads(chunk.read_text().split("] = ", 1)[1].rstrip(";\n"))  # after the target
        shown |= {sample_id: sample["original"] for sample_id, sample in part["samples"].items()}
    return shown


def test_originals_from_the_split_are_the_validated_records(tmp_path: Path) -> None:
    split = tmp_path / "split.jsonl"
    split_of_run(split)
    from_split = run_folder(tmp_path, "from-split", split)
    reduction = reduce_run(from_split)
    publish(from_split, reduction.results, reduction.metrics)
    loaded = load_split(str(split))
    assert {e.sample_id for e in loaded.errors} == {"no_checker", "bad_lang", None}  # the run's invalid rows
    from_records = run_folder(tmp_path, "from-records", split)
    reduction = reduce_run(from_records)
    publish(from_records, reduction.results, reduction.metrics, records={r.sample_id: r for r in loaded.records})

    assert site_files(from_split) == site_files(from_records)
    shown = shown_originals(from_split)
    assert shown["lr01_cpp_0"] == lines_of(loaded.records[0].code)
    assert {s for s, original in shown.items() if original is None} == {"no_checker", "#row-3", "bad_lang"}


def test_a_split_that_is_gone_gives_pages_without_originals(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    folder = run_folder(tmp_path, "gone", tmp_path / "deleted.jsonl")
    reduction = reduce_run(folder)
    publish(folder, reduction.results, reduction.metrics)
    assert "originals not shown in the report" in caplog.text
    shown = shown_originals(folder)
    assert len(shown) == 7 and all(original is None for original in shown.values())
