"""Recorded vs re-linted alerts of originals, as multisets of ``message_identity``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, Field

from linteval_ray.languages import language, languages
from linteval_ray.schema.record import Language, LintMessage

TOP_CHECKS = 10


class CalibrationSample(BaseModel):
    """One original: what the dataset recorded and what we found (or why we could not lint it)."""

    sample_id: str
    language: Language
    recorded: list[LintMessage]
    relinted: list[LintMessage] | None = None
    lint_error: str | None = None


class ToolAgreement(BaseModel):
    language: str
    tool: str
    samples: int = 0
    lint_errors: int = 0
    exact: int = Field(default=0, description="samples whose recorded and re-linted multisets are equal")
    recorded: int = 0
    relinted: int = 0
    matched: int = 0
    exact_rate: float | None = None
    recall: float | None = Field(default=None, description="matched / recorded")
    precision: float | None = Field(default=None, description="matched / relinted")
    only_ours: dict[str, int] = Field(default_factory=dict, description="top checks we report that the record lacks")
    only_recorded: dict[str, int] = Field(default_factory=dict, description="top recorded checks we do not report")


class CalibrationReport(BaseModel):
    dataset: str
    profile: dict[str, str | int]
    samples: int
    by_language: dict[str, ToolAgreement]
    overall: ToolAgreement


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def _identities(messages: Sequence[LintMessage]) -> Counter[str]:
    return Counter(m.message_identity for m in messages)


def _check_of(identity: str) -> str:
    return identity.split("::", 1)[0]


def _accumulate(agreement: ToolAgreement, sample: CalibrationSample, ours: Counter[str],
                theirs: Counter[str]) -> None:
    recorded, relinted = _identities(sample.recorded), _identities(sample.relinted or [])
    matched = sum((recorded & relinted).values())
    agreement.samples += 1
    agreement.recorded += sum(recorded.values())
    agreement.relinted += sum(relinted.values())
    agreement.matched += matched
    agreement.exact += recorded == relinted
    for identity, count in (relinted - recorded).items():
        ours[_check_of(identity)] += count
    for identity, count in (recorded - relinted).items():
        theirs[_check_of(identity)] += count


def _finish(agreement: ToolAgreement, ours: Counter[str], theirs: Counter[str]) -> ToolAgreement:
    agreement.exact_rate = _ratio(agreement.exact, agreement.samples)
    agreement.recall = _ratio(agreement.matched, agreement.recorded)
    agreement.precision = _ratio(agreement.matched, agreement.relinted)
    agreement.only_ours = dict(ours.most_common(TOP_CHECKS))
    agreement.only_recorded = dict(theirs.most_common(TOP_CHECKS))
    return agreement


def compare(samples: Iterable[CalibrationSample], dataset: str, profile: dict[str, str | int]) -> CalibrationReport:
    """Agreement per language (one tool each) and overall; samples we could not lint are counted apart."""
    groups: dict[str, tuple[ToolAgreement, Counter[str], Counter[str]]] = {}
    overall = (ToolAgreement(language="all", tool="all"), Counter[str](), Counter[str]())
    count = 0
    for sample in samples:
        count += 1
        group = groups.setdefault(sample.language, (
            ToolAgreement(language=sample.language, tool=language(sample.language).linter_tool),
            Counter[str](), Counter[str]()))
        if sample.relinted is None:
            group[0].lint_errors += 1
            overall[0].lint_errors += 1
            continue
        _accumulate(group[0], sample, group[1], group[2])
        _accumulate(overall[0], sample, overall[1], overall[2])
    by_language = {spec.name: _finish(*groups[spec.name]) for spec in languages() if spec.name in groups}
    return CalibrationReport(dataset=dataset, profile=profile, samples=count, by_language=by_language,
                             overall=_finish(*overall))
