"""Twenty real CodeContests problems (data/sandboxfusion: SandboxFusion's sample file, converted to
CodeContests-O rows; NOTICE.md) judged with programs written for this project: every correct one
passes their 35 to 331 tests (fuzzed inputs outside the constraints included), every incorrect one
gets its verdict, and a correct one fails where the problem accepts several answers and has no checker
(both profiles) or where the answer is laid out on other lines (compat: the harness compares lines)."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
import yaml

from linteval_ray.config import load_config
from linteval_ray.pipeline.local import validate_in_process

DATA = Path(__file__).with_name("data") / "sandboxfusion"
LANGUAGES = {"cpp": "cpp", "py": "py3", "java": "java"}
pytestmark = pytest.mark.slow


def solutions() -> list[dict[str, Any]]:
    """Each program of solutions/ as a prediction (draws numbered per problem and language), with its expectations."""
    expected = yaml.safe_load((DATA / "expected.yaml").read_text())
    draws: dict[str, int] = defaultdict(int)
    found = []
    for name, facts in sorted(expected.items()):
        sample_id = f"{facts['problem']}/{LANGUAGES[name.rsplit('.', 1)[1]]}"
        found.append({"sample_id": sample_id, "draw": draws[sample_id], "file": name, "strict": facts["strict"],
                      "compat": facts["compat"], "revised_code": (DATA / "solutions" / name).read_text()})
        draws[sample_id] += 1
    return found


def verdicts(tmp_path: Path, chosen: list[dict[str, Any]], *overrides: str) -> dict[str, str]:
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps({k: s[k] for k in ("sample_id", "draw", "revised_code")}) + "\n"
                               for s in chosen))
    config = load_config(None, [f"dataset.source={json.dumps(str(DATA / 'code_contests.jsonl'))}",
                                f"generation.replay.predictions={json.dumps(str(answers))}",
                                f"generation.n={1 + max(s['draw'] for s in chosen)}",
                                f"dataset.sample_ids={json.dumps(sorted({s['sample_id'] for s in chosen}))}",
                                'dataset.languages=["cpp","py3","java"]', *overrides])
    rows = {row.row_id: row for row in validate_in_process(config)}
    return {s["file"]: (rows[f"{s['sample_id']}/{s['draw']}"].verdict or rows[f"{s['sample_id']}/{s['draw']}"].status)
            for s in chosen}


def test_every_program_gets_its_verdict_on_the_real_problems_in_the_strict_profile(tmp_path: Path) -> None:
    chosen = solutions()
    assert len({s["sample_id"].rsplit("/", 1)[0] for s in chosen}) == 20  # every problem is judged
    assert verdicts(tmp_path, chosen) == {s["file"]: s["strict"] for s in chosen}


COMPAT_CHOSEN = ("1342_c.ok.cpp", "1045_d.ok.py", "1139_c.ok.py", "1025_b.ok.py", "12_b.bad.py", "12_b.ok.java")


def test_the_compat_profile_judges_them_as_the_published_harness(tmp_path: Path) -> None:
    """The programs whose outputs the harness's line comparison sees differently (answers laid out on other
    lines, floats, leading spaces, another valid answer) and a wrong and a Java one."""
    chosen = [s for s in solutions() if s["file"] in COMPAT_CHOSEN]
    assert verdicts(tmp_path, chosen, "task.options.judge=compat") == {s["file"]: s["compat"] for s in chosen}
