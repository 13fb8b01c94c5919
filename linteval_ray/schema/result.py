"""The per-sample result row: one per (input sample, draw), whatever happened to it."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from linteval_ray.schema.record import LintMessage


class Status(StrEnum):
    """How far a row got. Only ``evaluated`` rows carry a verdict on the revision."""

    EVALUATED = "evaluated"
    INVALID_INPUT = "invalid_input"  # the input row failed schema validation
    INVALID_PROBLEM = "invalid_problem"  # the problem's tools or original are broken
    GENERATION_ERROR = "generation_error"  # the model backend failed on this row
    INFRA_ERROR = "infra_error"  # the evaluator itself failed (sandbox, worker, storage)


class Verdict(StrEnum):
    """Classed outcome of validating a revision (``validation_error`` is its string form)."""

    PASSED = "passed"
    EXTRACTION_FAILED = "extraction_failed"
    COMPILE_ERROR = "compile_error"
    WRONG_ANSWER = "wrong_answer"
    TIME_LIMIT = "time_limit"
    MEMORY_LIMIT = "memory_limit"
    OUTPUT_LIMIT = "output_limit"
    RUNTIME_ERROR = "runtime_error"
    NO_TESTS = "no_tests"
    INFRA_ERROR = "infra_error"


class CategoryCount(BaseModel):
    """Alert counts of one category (the paper's five), for sums in the reduction."""

    category: str
    original: int = 0
    revised: int = 0
    remaining: int = 0
    new: int = 0


class SampleMetrics(BaseModel):
    """Per-sample metrics, field names as in the dataset card's ``metrics`` column."""

    original_total_messages: int = 0
    revised_total_messages: int = 0
    old_messages_remaining: int = 0
    new_messages_count: int = 0
    mrr_at_pass: float | None = Field(default=None, description="(in - out) / in")
    new_msg_per_sample_at_pass: int = 0
    line_churn_at_pass: float | None = Field(
        default=None, description="(added + deleted lines) / original_loc"
    )
    original_loc: int = 0
    revised_loc: int = 0
    added_lines: int = 0
    deleted_lines: int = 0
    category_mrr: dict[str, float] | None = Field(
        default=None, description="per alert category of the original (the rows' `category`): (in - out) / in"
    )
    category_counts: list[CategoryCount] = Field(default_factory=list)

    @field_validator("category_mrr", mode="before")
    @classmethod
    def _map_from_arrow(cls, value: Any) -> Any:
        """Arrow map columns come back as lists of (key, value) pairs."""
        return dict(value) if isinstance(value, list) else value


class LintAgreement(BaseModel):
    """The dataset's recorded original alerts against ours (re-linted), matched as multisets
    of ``message_identity``: how far our lint settings drift from the reference harness."""

    recorded: int = Field(description="alerts the row records for the original (linter_messages)")
    relinted: int = Field(description="alerts our linters find on the original")
    matched: int = Field(description="multiset intersection of the two")

    @property
    def exact(self) -> bool:
        return self.recorded == self.relinted == self.matched


class LintFailure(BaseModel):
    """A linter that failed on one side of a row (crash, CPU or wall limit, memory, dead worker).
    The row is still judged; its alert metrics are left out (``metrics`` is None)."""

    side: str = Field(description="'original', 'revision' or 'both'")
    reason: str = Field(description="the tool and a short reason, e.g. 'pylint: CPU budget of 30 s exceeded'")


class Limits(BaseModel):
    """Resource limits a revision ran under (recorded in every row)."""

    time_floor_s: float
    time_factor: float
    memory_mb: int
    output_mb: int


class Timings(BaseModel):
    """Where the seconds went for one row (wall clock, in the validation actor), measured per row."""

    lint_s: float = Field(default=0.0, description="the row's share of its language's batched linter call")
    compile_s: float = 0.0
    tests_s: float = 0.0
    total_s: float = Field(default=0.0, description="lint + prepare + compile + tests of this row")
    prepare_s: float = Field(
        default=0.0, description="the problem's tools, tests and reference answers (near 0 once cached)"
    )


EXCERPT_CAP = 2048  # characters of a first failure's excerpts, after escaping


class FirstFailure(BaseModel):
    """The first failing test of a row that ran tests and did not pass (test order decides).

    Excerpts are the first ``EXCERPT_CAP`` characters of the text, made safe to store and show:
    decoded as UTF-8, a byte that is not UTF-8 as ``\\xNN``, a backslash as ``\\\\``, and every
    control or invisible formatting character except newline and tab as ``\\xNN`` / ``\\uNNNN``.
    ``*_truncated`` says the text went on. HTML escaping is the site's job."""

    test_index: int = Field(description="0-based position among the judged tests")
    test_name: str = Field(description="the test's input name (tests/<name>.in in the cache)")
    verdict: str = Field(description="this test's verdict (wrong_answer, runtime_error, ...)")
    generator_line: int | None = Field(default=None, description="1-based line of generator_cmd that made the input")
    generator_command: str | None = Field(default=None, description="that line, as written")
    input_excerpt: str = ""
    input_truncated: bool = False
    expected_excerpt: str = Field(default="", description="the original program's answer")
    expected_truncated: bool = False
    output_excerpt: str | None = Field(default=None, description="the revision's stdout (None: not run)")
    output_truncated: bool = False
    message: str = Field(default="", description="the checker's message, or the tail of the program's stderr")
    ended: str = Field(default="", description="how the run ended: 'exit 0', 'exit 1', 'signal 11 (SIGSEGV)', ...")
    evidence: str | None = Field(
        default=None, description="what decided this test's verdict, from the system's own facts (the kernel's CPU "
        "time, signals and memory counts, the output's size, the problem's checker), never the program's text")
    exit_code: int | None = None
    signal: int | None = None
    wall_s: float = 0.0
    cpu_s: float = 0.0
    time_limit_s: float = 0.0
    memory_mb: float | None = Field(
        default=None, description="peak resident MB; None when not measurable (at most the worker's own footprint)"
    )


class FinishReason(StrEnum):
    """Why generation stopped (endpoints may report other reasons; they are kept as given)."""

    STOP = "stop"  # end of sequence or a stop sequence
    LENGTH = "length"  # cut at max_tokens: the answer may be incomplete
    ERROR = "error"  # no response (see generation_error)


class GenerationFacts(BaseModel):
    """What the generation of one row cost and how it ended (None: the backend does not know)."""

    prompt_tokens: int | None = Field(default=None, description="tokens of the prompt after the chat template")
    generated_tokens: int | None = Field(default=None, description="tokens the model generated")
    finish_reason: str | None = Field(default=None, description="stop, length (cut at max_tokens) or error")
    reasoning_tokens: int | None = Field(
        default=None, description="generated tokens up to and including </think> (or the reasoning_content field)")
    generation_s: float | None = Field(default=None, description="seconds the request took in the engine / server")


GENERATION_FACTS: tuple[str, ...] = tuple(GenerationFacts.model_fields)


class ResultRow(BaseModel):
    """One output row. Every input sample yields exactly one per draw."""

    model_config = ConfigDict(extra="forbid")

    sample_id: str = Field(description="input sample id (or '#<row>' for an unparsable row)")
    draw: int = Field(default=0, description="0..n-1: which generation for this sample")
    row_id: str = Field(description="unique key: sample_id/draw")
    problem_id: str | None = None
    language: str | None = None
    split: str | None = None
    task: str | None = Field(default=None, description="the task the row belongs to (None: LintEval)")
    facets: dict[str, str] | None = Field(
        default=None, description="what the task groups its metrics by besides language (difficulty, source)")
    status: Status
    error: str | None = Field(default=None, description="why status is not 'evaluated'")

    model: str | None = None
    prompt_version: str | None = None
    revised_code: str | None = None
    raw_response: str | None = None
    extraction_ok: bool | None = None
    tokens_used: int | None = None
    prompt_tokens: int | None = None
    generated_tokens: int | None = None
    finish_reason: str | None = None
    reasoning_tokens: int | None = None
    generation_s: float | None = None

    compile_ok: bool | None = None
    pass_at_1: bool = False
    verdict: Verdict | None = None
    validation_error: str | None = Field(
        default=None, description="None when passed, else '<verdict>[: detail]'"
    )
    tests_generated: int = 0
    tests_passed: int = 0
    tests_failed: int = 0
    tests_dropped: int = Field(
        default=0, description="inputs rejected by the validator or failed by the original"
    )
    first_failure: FirstFailure | None = Field(
        default=None, description="the first failing test's details (None: passed, or no test ran)"
    )

    original_messages: list[LintMessage] = Field(default_factory=list)
    revised_messages: list[LintMessage] = Field(default_factory=list)
    metrics: SampleMetrics | None = None
    lint_agreement: LintAgreement | None = Field(
        default=None, description="recorded vs re-linted alerts of the original (None: original not linted)"
    )
    suppressions_added: int | None = Field(
        default=None, description="inline suppression comments the revision adds (NOLINT, pylint: disable, NOPMD, ...)"
    )
    lint_error: LintFailure | None = Field(
        default=None, description="the linter failed on this row's original or revision (the verdict stands)"
    )
    limits: Limits | None = None
    timings: Timings = Field(default_factory=Timings)
    toolchain_id: str | None = None
    worker: str | None = Field(default=None, description="node / actor that validated the row")

    @field_validator("facets", mode="before")
    @classmethod
    def _facets_from_arrow(cls, value: Any) -> Any:
        """Arrow map columns come back as lists of (key, value) pairs."""
        return dict(value) if isinstance(value, list) else value

    @staticmethod
    def make_row_id(sample_id: str, draw: int) -> str:
        return f"{sample_id}/{draw}"
