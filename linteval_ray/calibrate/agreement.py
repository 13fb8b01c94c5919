"""Recorded vs re-linted alerts of originals, as multisets of ``message_identity``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel, Field

from linteval_ray.languages.registry import language, languages
from linteval_ray.reduce.agreement import AgreementMetrics
from linteval_ray.schema import LintAgreement
from linteval_ray.schema.record import Language, LintMessage
from linteval_ray.validate.sample_metrics import lint_agreement

TOP_CHECKS = 10


class CalibrationSample(BaseModel):
    """One original: what the dataset recorded and what we found (or why we could not lint it)."""

    sample_id: str
    language: Language
    recorded: list[LintMessage]
    relinted: list[LintMessage] | None = None
    lint_error: str | None = None


class ToolAgreement(AgreementMetrics):
    """One language's (one tool's) agreement, or all of them, and the checks that disagree most."""

    language: str
    tool: str
    lint_errors: int = Field(default=0, description="originals the linter failed on (not in the sums)")
    only_ours: dict[str, int] = Field(default_factory=dict, description="top checks we report that the record lacks")
    only_recorded: dict[str, int] = Field(default_factory=dict, description="top recorded checks we do not report")


class CalibrationReport(BaseModel):
    dataset: str
    profile: dict[str, Any]
    samples: int
    by_language: dict[str, ToolAgreement]
    overall: ToolAgreement


def _identities(messages: Sequence[LintMessage]) -> Counter[str]:
    return Counter(m.message_identity for m in messages)


def _check_of(identity: str) -> str:
    return identity.split("::", 1)[0]


class _Group:
    """One group's samples as they stream by: each one's agreement, and the checks that differ."""

    def __init__(self, language: str, tool: str) -> None:
        self.language, self.tool = language, tool
        self.agreements: list[LintAgreement] = []
        self.lint_errors = 0
        self.ours = Counter[str]()
        self.theirs = Counter[str]()

    def add(self, sample: CalibrationSample) -> None:
        if sample.relinted is None:
            self.lint_errors += 1
            return
        self.agreements.append(lint_agreement(sample.recorded, sample.relinted))
        recorded, relinted = _identities(sample.recorded), _identities(sample.relinted)
        for identity, count in (relinted - recorded).items():
            self.ours[_check_of(identity)] += count
        for identity, count in (recorded - relinted).items():
            self.theirs[_check_of(identity)] += count

    def finish(self) -> ToolAgreement:
        return ToolAgreement.of(self.agreements, language=self.language, tool=self.tool,
                                lint_errors=self.lint_errors, only_ours=dict(self.ours.most_common(TOP_CHECKS)),
                                only_recorded=dict(self.theirs.most_common(TOP_CHECKS)))


def compare(samples: Iterable[CalibrationSample], dataset: str, profile: dict[str, Any]) -> CalibrationReport:
    """Agreement per language (one tool each) and overall; samples we could not lint are counted apart."""
    groups: dict[str, _Group] = {}
    overall = _Group("all", "all")
    count = 0
    for sample in samples:
        count += 1
        if sample.language not in groups:
            groups[sample.language] = _Group(sample.language, language(sample.language).linter_tool)
        groups[sample.language].add(sample)
        overall.add(sample)
    by_language = {spec.name: groups[spec.name].finish() for spec in languages() if spec.name in groups}
    return CalibrationReport(dataset=dataset, profile=profile, samples=count, by_language=by_language,
                             overall=overall.finish())
