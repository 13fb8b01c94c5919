"""How healthy a run's generations were: cut responses, answers without code, token budgets.

A run whose responses were cut at ``max_tokens`` or held no program still scores, and those rows
count as the model's failures; that is right only when it is the model's doing rather than the
budget's. These numbers (``metrics.json`` key ``generation``) say which, and ``problems`` names
the rates over the configured thresholds (a loud warning; ``--strict`` fails the run).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

from pydantic import BaseModel, Field

from linteval_ray.config import HealthConfig
from linteval_ray.prompt.extract import ExtractionFailure
from linteval_ray.reduce.ratios import ratio
from linteval_ray.reduce.rows import MetricRow, metric_rows
from linteval_ray.schema import ResultRow, Status
from linteval_ray.schema.result import FinishReason, Verdict

TRUNCATED = "truncated"  # an extraction failure of a response cut at max_tokens


class GenerationHealth(BaseModel):
    """Over the rows that reached generation (``invalid_input`` rows never did)."""

    rows: int = 0
    responses: int = Field(default=0, description="rows with a response (no generation_error)")
    generation_errors: int = 0
    prompt_too_long: int = Field(default=0, description="prompts refused before generation: longer than the context")
    finish_reasons: dict[str, int] = Field(default_factory=dict)
    truncated: int = Field(default=0, description="responses cut at max_tokens (finish_reason length)")
    truncated_rate: float | None = Field(default=None, description="truncated / responses")
    truncated_while_thinking: int = Field(default=0, description="cut before the reasoning ended: no answer at all")
    extraction_failures: dict[str, int] = Field(
        default_factory=dict,
        description="by cause: no_code_block (answered without code), unclosed_think, truncated "
        "(cut at max_tokens), empty")
    extraction_failure_rate: float | None = Field(default=None, description="extraction failures / responses")
    generated_tokens_mean: float | None = None
    generated_tokens_p95: int | None = None
    reasoning_tokens_mean: float | None = Field(default=None, description="over the responses that reasoned")
    tokens_per_s: float | None = Field(
        default=None, description="Σ generated tokens / Σ generation_s: one request's decoding speed, not the "
        "cluster's throughput (requests overlap)")
    max_truncated_rate: float = HealthConfig().max_truncated_rate
    max_extraction_failure_rate: float = HealthConfig().max_extraction_failure_rate

    def problems(self) -> list[str]:
        """The rates over their thresholds, each a sentence saying what to do."""
        notes = []
        if self.truncated_rate is not None and self.truncated_rate > self.max_truncated_rate:
            notes.append(f"{self.truncated_rate:.1%} of responses ({self.truncated}/{self.responses}) were cut at "
                         f"max_tokens (threshold {self.max_truncated_rate:.0%}; {self.truncated_while_thinking} "
                         "while still thinking): their failures are the token budget's; raise "
                         "generation.sampling.max_tokens (or disable thinking: generation.chat_template_kwargs)")
        rate = self.extraction_failure_rate
        if rate is not None and rate > self.max_extraction_failure_rate:
            causes = ", ".join(f"{cause} {count}" for cause, count in sorted(self.extraction_failures.items()))
            notes.append(f"{rate:.1%} of responses held no program to judge (threshold "
                         f"{self.max_extraction_failure_rate:.0%}; {causes}): check the prompt, the chat template "
                         "and max_tokens before trusting the score")
        return notes

    def warnings(self) -> list[str]:
        notes = self.problems()
        if self.prompt_too_long:
            notes.append(f"{self.prompt_too_long} prompt(s) do not fit max_model_len - max_tokens and were not "
                         "generated (generation_error prompt_too_long; they count as not passed)")
        return notes


def extraction_cause(row: MetricRow) -> str | None:
    """Why ``row`` has no program (None when it has one or never got a response)."""
    if row.extraction_ok is not False:
        return None
    if row.finish_reason == FinishReason.LENGTH:
        return TRUNCATED
    detail = (row.validation_error or "").removeprefix(f"{Verdict.EXTRACTION_FAILED}: ")
    return next((str(f) for f in ExtractionFailure if detail.startswith(str(f))), str(ExtractionFailure.EMPTY))


def generation_health(rows: Iterable[ResultRow | MetricRow], thresholds: HealthConfig | None = None
                      ) -> GenerationHealth:
    thresholds = thresholds or HealthConfig()
    generated = [r for r in metric_rows(rows) if r.status != Status.INVALID_INPUT]
    errors = [r for r in generated if r.status == Status.GENERATION_ERROR]
    responses = [r for r in generated if r.status != Status.GENERATION_ERROR]
    truncated = [r for r in responses if r.finish_reason == FinishReason.LENGTH]
    causes = Counter(cause for r in responses if (cause := extraction_cause(r)) is not None)
    # The rate (and its warning) is the generation's only where a backend recorded how it ended:
    # a replay of the dataset's own revisions has no such facts, and its misses are the record's.
    generated_here = [r for r in responses if r.finish_reason is not None]
    failed_here = sum(extraction_cause(r) is not None for r in generated_here)
    tokens = sorted(r.generated_tokens for r in responses if r.generated_tokens is not None)
    reasoning = [r.reasoning_tokens for r in responses if r.reasoning_tokens]
    timed = [r for r in responses if r.generated_tokens is not None and r.generation_s]
    seconds = sum(r.generation_s or 0.0 for r in timed)
    return GenerationHealth(
        rows=len(generated),
        responses=len(responses),
        generation_errors=len(errors),
        prompt_too_long=sum(r.prompt_too_long for r in errors),
        finish_reasons=dict(Counter(r.finish_reason for r in generated if r.finish_reason)),
        truncated=len(truncated),
        truncated_rate=ratio(len(truncated), len(responses)),
        truncated_while_thinking=sum(_thinking(r) for r in truncated),
        extraction_failures=dict(causes),
        extraction_failure_rate=ratio(failed_here, len(generated_here)),
        generated_tokens_mean=ratio(sum(tokens), len(tokens)),
        generated_tokens_p95=tokens[max(0, math.ceil(0.95 * len(tokens)) - 1)] if tokens else None,
        reasoning_tokens_mean=ratio(sum(reasoning), len(reasoning)),
        tokens_per_s=ratio(sum(r.generated_tokens or 0 for r in timed), seconds),
        max_truncated_rate=thresholds.max_truncated_rate,
        max_extraction_failure_rate=thresholds.max_extraction_failure_rate,
    )


def _thinking(row: MetricRow) -> bool:
    """Cut inside its reasoning: every generated token was reasoning, or the <think> never closed."""
    if row.reasoning_tokens and row.generated_tokens is not None and row.reasoning_tokens >= row.generated_tokens:
        return True
    return str(ExtractionFailure.UNCLOSED_THINK) in (row.validation_error or "")
