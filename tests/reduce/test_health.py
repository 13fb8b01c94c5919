"""Generation health: cut responses and answers without code are counted by cause, and a run over
the thresholds warns loudly and fails under --strict."""

from __future__ import annotations

from pathlib import Path

from linteval_ray.cli import main
from linteval_ray.config import HealthConfig
from linteval_ray.reduce.health import generation_health
from linteval_ray.reduce.metrics import compute
from linteval_ray.schema import ResultRow, Status, Verdict
from linteval_ray.store.folder import RunFolder
from linteval_ray.store.shards import write_rows


def _row(sid: str, *, finish: str | None = "stop", tokens: int = 10, failure: str | None = None,
         status: Status = Status.EVALUATED, error: str | None = None, reasoning: int = 0) -> ResultRow:
    row = ResultRow(sample_id=sid, row_id=f"{sid}/0", language="cpp", status=status, error=error,
                    finish_reason=finish, generated_tokens=tokens, prompt_tokens=100, reasoning_tokens=reasoning,
                    generation_s=0.5)
    if status == Status.EVALUATED:
        row.extraction_ok = failure is None
        row.verdict = Verdict.EXTRACTION_FAILED if failure else Verdict.PASSED
        row.pass_at_1 = failure is None
        row.validation_error = f"extraction_failed: {failure}" if failure else None
    return row


def healthy_rows(n: int) -> list[ResultRow]:
    return [_row(f"ok{i}", tokens=10 + i) for i in range(n)]


def test_failures_are_counted_by_cause_and_thinking_cut_apart_from_no_code() -> None:
    rows = [
        *healthy_rows(16),
        _row("prose", failure="no_code_block"),
        _row("cut", finish="length", tokens=64, failure="no_code_block"),
        _row("thinking", finish="length", tokens=64, failure="unclosed_think", reasoning=64),
        _row("cut-but-extracted", finish="length", tokens=64),
        _row("blank", failure="empty", tokens=1),
        _row("huge", finish="error", tokens=0, status=Status.GENERATION_ERROR,
             error="prompt_too_long: 5000 tokens > 4084 (max_model_len 4096 - max_tokens 12)"),
        _row("bad", status=Status.INVALID_INPUT, finish=None),
    ]
    health = generation_health(rows)

    assert (health.rows, health.responses, health.generation_errors, health.prompt_too_long) == (22, 21, 1, 1)
    assert health.truncated == 3 and health.truncated_while_thinking == 1
    assert health.truncated_rate == 3 / 21
    assert health.extraction_failures == {"no_code_block": 1, "truncated": 2, "empty": 1}
    assert health.extraction_failure_rate == 4 / 21
    assert health.finish_reasons == {"stop": 18, "length": 3, "error": 1}
    assert health.generated_tokens_p95 == 64 and health.reasoning_tokens_mean == 64
    assert health.tokens_per_s == sum(r.generated_tokens or 0 for r in rows[:21]) / (21 * 0.5)
    problems = health.problems()
    assert len(problems) == 2
    assert problems[0].startswith("14.3% of responses (3/21) were cut at max_tokens (threshold 5%; 1 while still")
    assert "no_code_block 1, truncated 2" in problems[1]
    warnings = compute(rows).warnings()
    assert problems[0] in warnings and any("1 prompt(s) do not fit" in w for w in warnings)


def test_rates_at_or_below_the_thresholds_raise_nothing() -> None:
    rows = [*healthy_rows(19), _row("cut", finish="length", tokens=64)]  # 5 %: not above
    assert generation_health(rows).problems() == []
    assert generation_health(rows, HealthConfig(max_truncated_rate=0.01)).problems() != []


def test_strict_fails_the_reduction_of_an_unhealthy_run(tmp_path: Path, capsys: object) -> None:
    output = str(tmp_path / "run")
    rows = [*healthy_rows(3), _row("cut", finish="length", tokens=64, failure="no_code_block")]
    write_rows(RunFolder.open(output), rows)

    assert main(["reduce", output]) == 0
    assert main(["reduce", output, "--strict"]) == 1
    out, err = capsys.readouterr()  # type: ignore[attr-defined]
    assert "WARNING: 25.0% of responses (1/4) were cut at max_tokens" in out
    assert "--strict: 2 generation health check(s) failed" in err
    report = (tmp_path / "run" / "report.md").read_text()
    assert "### Generation health" in report
    assert "| cut at max_tokens (finish_reason length) | 1 (25.0%) |" in report
    assert "|   answered without code (no code block) | 0 |" in report

    config = tmp_path / "lenient.yaml"
    config.write_text("generation:\n  health: {max_truncated_rate: 0.5, max_extraction_failure_rate: 0.5}\n")
    assert main(["reduce", output, "--strict", "--config", str(config)]) == 0
