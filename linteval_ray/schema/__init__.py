"""Typed models at every boundary: input records, lint messages, result rows."""

from linteval_ray.schema.record import Language, LintEvalRecord, LintMessage
from linteval_ray.schema.result import (
    CategoryCount,
    FirstFailure,
    LintAgreement,
    ResultRow,
    SampleMetrics,
    Status,
    Verdict,
)

__all__ = [
    "CategoryCount",
    "FirstFailure",
    "Language",
    "LintAgreement",
    "LintEvalRecord",
    "LintMessage",
    "ResultRow",
    "SampleMetrics",
    "Status",
    "Verdict",
]
