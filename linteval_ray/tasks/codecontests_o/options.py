"""``task.options`` of CodeContests-O: the judging profile, the limits policy, the size caps.

Every setting here can change a result: all of them are fingerprinted (pipeline/run.py).
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class Profile(StrEnum):
    """How solutions are judged (docs/tasks.md)."""

    STRICT = "strict"  # the row's checker, else token comparison; CPU-time limits; -O2
    COMPAT = "compat"  # the published harness: lenient line comparison or checker exit 0; 20 s wall; no -O2


class CodeContestsOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    judge: Profile = Field(default=Profile.STRICT, description="strict (default) or compat (the published harness)")
    limits_url: str | None = Field(
        default=None, description="a side table of per-problem limits (JSONL or Parquet, a glob for several files): "
        "name -> time_limit ({seconds, nanos} or seconds), memory_limit_bytes, as deepmind/code_contests; its "
        "difficulty, source and cf_rating group the metrics")
    time_limit_s: float = Field(default=2.0, gt=0, description="CPU seconds per test when neither the row nor "
                                "the side table states the problem's limit")
    memory_mb: int = Field(default=256, ge=64, description="memory per test when neither states it")
    time_factors: dict[str, float] = Field(
        default_factory=lambda: {"java": 2.0, "py3": 3.0},
        description="a language's CPU-time limit is the problem's times this (default 1): a JVM's start-up and "
        "CPython's speed against the C++ solutions limits were set for")
    max_statement_kb: int = Field(default=512, ge=1, description="a longer description is an invalid row")
    max_checker_kb: int = Field(default=1024, ge=1, description="a longer checker is an invalid row")
    max_tests_mb: int = Field(default=1024, ge=1, description="more bytes of tests (inputs and answers) is an "
                              "invalid row")
    compat_memory_mb: int = Field(default=2048, ge=64, description="memory per test in the compat profile (the "
                                  "published harness sets none)")
