from __future__ import annotations

from pathlib import Path

import linteval_ray
from linteval_ray.load import PRESET_NAMES, bundled_path, resolve_source


def test_hub_presets_resolve_to_the_lintEval_files() -> None:
    assert resolve_source("lite") == "hf://datasets/deepbreath7/LintEval/lite/linteval_lite.jsonl"
    assert resolve_source("demo") == "hf://datasets/deepbreath7/LintEval/lite/demo_100.jsonl"
    assert resolve_source("full") == "hf://datasets/deepbreath7/LintEval/full/linteval_full.jsonl"


def test_bundled_resolves_to_the_package_resource() -> None:
    package = Path(linteval_ray.__file__).resolve().parent
    assert resolve_source("bundled") == str(package / "load" / "bundled" / "linteval_bundled.jsonl")
    assert bundled_path() == package / "load" / "bundled" / "linteval_bundled.jsonl"
    assert bundled_path().is_file()


def test_urls_and_paths_pass_through_unchanged() -> None:
    for source in ("s3://bucket/x.jsonl", "runs/in.parquet", "/abs/lite.jsonl.gz", "hf://datasets/a/b/c.jsonl"):
        assert resolve_source(source) == source


def test_every_preset_name_resolves_to_something_else() -> None:
    assert set(PRESET_NAMES) == {"bundled", "lite", "demo", "full"}
    assert all(resolve_source(name) != name for name in PRESET_NAMES)
