"""Lint agreement over many originals: the dataset's recorded alerts against our re-lint, summed
from each sample's ``LintAgreement`` (``validate/sample_metrics.py`` ``lint_agreement``). ``metrics.json``
and ``linteval-ray calibrate`` both count it here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, Self

from pydantic import BaseModel, Field

from linteval_ray.reduce.ratios import ratio
from linteval_ray.reduce.rows import MetricRow


class SampleAgreement(Protocol):
    """One original's agreement: a ``LintAgreement``, or the reduction's compact ``rows.Agreement``."""

    @property
    def recorded(self) -> int: ...
    @property
    def relinted(self) -> int: ...
    @property
    def matched(self) -> int: ...
    @property
    def exact(self) -> bool: ...


class AgreementMetrics(BaseModel):
    """Recorded (dataset) vs re-linted (ours) original alerts, over the samples linted."""

    samples: int = 0
    exact: int = Field(default=0, description="samples whose two multisets are identical")
    recorded: int = 0
    relinted: int = 0
    matched: int = 0
    exact_rate: float | None = None
    recall: float | None = Field(default=None, description="matched / recorded: recorded alerts we find")
    precision: float | None = Field(default=None, description="matched / relinted: our alerts the record has")

    @classmethod
    def of(cls, agreements: Iterable[SampleAgreement], **fields: object) -> Self:
        """The sums and rates of one sample's agreement each (``fields``: a subclass's own)."""
        taken = list(agreements)
        exact = sum(a.exact for a in taken)
        recorded, relinted = sum(a.recorded for a in taken), sum(a.relinted for a in taken)
        matched = sum(a.matched for a in taken)
        return cls(samples=len(taken), exact=exact, recorded=recorded, relinted=relinted, matched=matched,
                   exact_rate=ratio(exact, len(taken)), recall=ratio(matched, recorded),
                   precision=ratio(matched, relinted), **fields)


class LintAgreementMetrics(BaseModel):
    overall: AgreementMetrics = Field(default_factory=AgreementMetrics)
    by_language: dict[str, AgreementMetrics] = Field(default_factory=dict)


def agreement_metrics(rows: Sequence[MetricRow]) -> AgreementMetrics:
    """Over one row per sample (draws share an original)."""
    first: dict[str, SampleAgreement] = {}
    for row in rows:
        if row.lint_agreement is not None:
            first.setdefault(row.sample_id, row.lint_agreement)
    return AgreementMetrics.of(first.values())


def lint_agreement_metrics(rows: Sequence[MetricRow], languages: Sequence[str]) -> LintAgreementMetrics:
    by_language = {lang: agreement_metrics([r for r in rows if r.language == lang]) for lang in languages}
    return LintAgreementMetrics(overall=agreement_metrics(rows),
                                by_language={k: v for k, v in by_language.items() if v.samples})
