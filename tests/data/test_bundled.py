"""The bundled data set: up to date with data/problems/, valid LintEval rows, and gold.

Gold means: every original passes all of its own generated tests (nothing dropped), every
reference revision gets the verdict its expect.yaml names from the real judge (bwrap sandbox,
default limits), and its alerts fit its kind (clean: none left; partial: some left, none new;
new_alerts: at least one new).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from linteval_ray.config import TestLimits as Limits  # aliased: pytest would collect Test*
from linteval_ray.languages import language_names
from linteval_ray.schema.record import LintEvalRecord
from linteval_ray.toolchain import Toolchain
from linteval_ray.validate.cache import ContentCache, default_cache_dir
from linteval_ray.validate.judge import JudgeContext, PreparedProblem, judge_revision, prepare_problem
from linteval_ray.validate.judge.commands import parse_generator_cmd
from linteval_ray.validate.lint import Linters
from linteval_ray.validate.sample_metrics import remaining_count
from linteval_ray.validate.sandbox import SandboxError, make_sandbox

LANGUAGES = language_names()

DATA_DIR = Path(__file__).resolve().parents[2] / "data"


def _load_build() -> ModuleType:
    """data/build.py is a script, not a package module: load it by path."""
    spec = importlib.util.spec_from_file_location("linteval_data_build", DATA_DIR / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # pydantic resolves the models' annotations through it
    spec.loader.exec_module(module)
    return module


build = _load_build()
ROWS: list[dict] = [json.loads(line) for line in build.OUTPUT.read_text(encoding="utf-8").splitlines()]
RECORDS = {row["sample_id"]: LintEvalRecord.model_validate(row) for row in ROWS}
EXPECT = {s.sample_id: s.expect for p in build.load_problems() for s in p.samples}
PASSING_KINDS = ("clean_fix", "partial_fix", "new_alerts")


@pytest.mark.slow
def test_jsonl_and_readme_are_up_to_date_with_the_problem_tree(linters: Linters) -> None:
    outputs = build.build_outputs(linters)
    stale = build.stale_files(outputs)
    assert not stale, f"rebuild with `.venv/bin/python data/build.py`; stale: {stale}"


def test_rows_follow_the_linteval_schema_in_card_order() -> None:
    assert [row["sample_id"] for row in ROWS] == sorted(RECORDS), "rows are sorted and unique"
    for row in ROWS:
        assert tuple(row) == build.FIELD_ORDER, row["sample_id"]
        record = RECORDS[row["sample_id"]]
        assert record.linter_message_count == len(record.linter_messages) >= 1
        assert record.original_messages == record.linter_messages
        assert record.original_loc == len(record.code.splitlines())
        assert record.compile_ok is True and record.pass_at_1 is None and record.metrics is None
        assert parse_generator_cmd(record.generator_cmd), "every problem has generator commands"
        assert record.extraction_ok == bool(record.revised_code)
        assert all(m.file in ("sol.cpp", "sol.py", "Main.java") for m in record.linter_messages), "no temp paths"


def test_size_and_coverage() -> None:
    assert len({r.problem_id for r in RECORDS.values()}) >= 10
    per_language = Counter(r.language for r in RECORDS.values())
    assert all(per_language[lang] >= 12 for lang in LANGUAGES), per_language
    kinds = Counter(e.kind for e in EXPECT.values())
    assert set(kinds) == set(build.KIND_VERDICTS), f"kinds not covered: {set(build.KIND_VERDICTS) - set(kinds)}"
    assert sum(kinds[k] for k in PASSING_KINDS) > len(EXPECT) / 2, "most reference revisions pass, as in real data"
    assert set(EXPECT) == set(RECORDS)


def test_no_code_samples_have_no_extractable_code() -> None:
    for sample_id, expect in EXPECT.items():
        record = RECORDS[sample_id]
        assert (expect.kind == "no_code") == (record.extraction_ok is False), sample_id


# ---- gold: the real judge and linters agree with every expect.yaml --------------------------


@pytest.fixture(scope="module")
def judge_ctx(toolchain: Toolchain, tmp_path_factory: pytest.TempPathFactory) -> Iterator[JudgeContext]:
    try:
        sandbox = make_sandbox("bwrap", toolchain=toolchain)
    except SandboxError as exc:
        pytest.skip(f"bwrap sandbox unusable here: {exc}")
    # The session's content cache (tests.fixtures.ray_local): tools compiled here are reused by the
    # pipeline tests, as a second evaluation of the same problems reuses them in real runs.
    cache = ContentCache(None, default_cache_dir() / "cache")
    yield JudgeContext(
        sandbox=sandbox, toolchain=toolchain, cache=cache, scratch=tmp_path_factory.mktemp("bundled-scratch"),
        limits=Limits(), jobs=2,
    )
    sandbox.close()


def _prepared(record: LintEvalRecord, ctx: JudgeContext) -> PreparedProblem:
    problem = prepare_problem(record, ctx)
    assert problem.tests_dropped == 0, f"{record.sample_id}: generated inputs dropped (validator or original)"
    assert len(problem.reference.tests) == len(parse_generator_cmd(record.generator_cmd))
    return problem


@pytest.mark.slow
@pytest.mark.parametrize("sample_id", sorted(RECORDS))
def test_reference_revision_gets_its_expected_verdict(sample_id: str, judge_ctx: JudgeContext) -> None:
    record, expect = RECORDS[sample_id], EXPECT[sample_id]
    problem = _prepared(record, judge_ctx)
    if not record.extraction_ok:
        assert expect.verdict == "extraction_failed"
        return
    result = judge_revision(record.language, record.revised_code or "", problem, judge_ctx)
    assert result.verdict.value == expect.verdict, f"{sample_id} ({expect.note}): {result.detail}"
    assert result.pass_at_1 == (expect.kind in PASSING_KINDS)


@pytest.mark.slow
@pytest.mark.parametrize("language", LANGUAGES)
def test_reference_revision_alerts_fit_their_kind(language: str, linters: Linters) -> None:
    samples = [s for s in sorted(RECORDS) if RECORDS[s].language == language and EXPECT[s].kind in PASSING_KINDS]
    revised = linters.lint(language, [RECORDS[s].revised_code or "" for s in samples])
    wrong = []
    for sample_id, messages in zip(samples, revised, strict=True):
        original = RECORDS[sample_id].linter_messages
        remaining = remaining_count(original, messages)
        new = len(messages) - remaining
        kind = EXPECT[sample_id].kind
        fits = {
            "clean_fix": not messages,
            "partial_fix": remaining > 0 and new == 0,
            "new_alerts": new > 0,
        }[kind]
        if not fits:
            wrong.append(f"{sample_id}: {kind} but {remaining} remaining, {new} new")
    assert not wrong, "\n".join(wrong)
