"""The one way metrics divide: a ratio of sums, None (never 0 or NaN) when nothing was counted."""

from __future__ import annotations

from collections.abc import Sequence


def ratio(numerator: float, denominator: float) -> float | None:
    return numerator / denominator if denominator else None


def ratio_of_sums(numerators: Sequence[float], denominators: Sequence[float]) -> float | None:
    return ratio(sum(numerators), sum(denominators))
