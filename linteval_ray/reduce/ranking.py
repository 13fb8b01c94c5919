"""How runs are ranked (a set's leaderboard, ``compare``): by one metric of a group, best first.

``pass_x_reduction`` (the default) is Pass@1 × Reduction@P: the share of samples whose revision
passes its tests, times the share of those samples' alerts the revisions removed. Doing nothing
cannot win it: returning every program unchanged passes every test (Pass@1 100 %) and removes no
alert (Reduction@P 0 %), a score of 0; breaking every program scores 0 too. Pass@1 alone ranks
doing nothing first; Reduction@P alone, a model that breaks most programs and cleans the few it
keeps. Either can still be asked for (``--rank-by pass_at_1``, ``reduction_at_p``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TypeVar

from linteval_ray.config import RankBy
from linteval_ray.reduce.metrics import GroupMetrics

T = TypeVar("T")


def pass_x_reduction(group: GroupMetrics) -> float | None:
    """Pass@1 × Reduction@P; 0 when nothing passed (Reduction@P has no sample then)."""
    if group.pass_at_1 == 0:
        return 0.0
    if group.pass_at_1 is None or group.reduction_at_p is None:
        return None
    return group.pass_at_1 * group.reduction_at_p


RANK_METRICS: dict[RankBy, tuple[str, Callable[[GroupMetrics], float | None]]] = {
    "pass_x_reduction": ("Pass@1×Reduction@P", pass_x_reduction),
    "pass_at_1": ("Pass@1", lambda group: group.pass_at_1),
    "reduction_at_p": ("Reduction@P", lambda group: group.reduction_at_p),
}


def rank_value(group: GroupMetrics, rank_by: RankBy) -> float | None:
    return RANK_METRICS[rank_by][1](group)


def ranked_by(items: Sequence[T], group_of: Callable[[T], GroupMetrics], rank_by: RankBy) -> list[T]:
    """``items`` best first by ``rank_by`` (a run without a value last), ties by Pass@1 then Reduction@P."""
    def key(item: T) -> tuple[float, float, float]:
        group = group_of(item)
        value = rank_value(group, rank_by)
        return (-value if value is not None else math.inf, -(group.pass_at_1 or 0.0), -(group.reduction_at_p or 0.0))

    return sorted(items, key=key)
