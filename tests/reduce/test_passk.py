from __future__ import annotations

import itertools
from math import comb

import pytest

from linteval_ray.reduce.passk import pass_at_k


def brute_force(n: int, c: int, k: int) -> float:
    """Fraction of all k-subsets of the n draws that contain a passing draw."""
    draws = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(range(n), k))
    return sum(any(draws[i] for i in s) for s in subsets) / len(subsets)


@pytest.mark.parametrize("n", range(1, 9))
def test_matches_enumeration_of_all_subsets(n: int) -> None:
    for c in range(n + 1):
        for k in range(1, n + 1):
            assert pass_at_k(n, c, k) == pytest.approx(brute_force(n, c, k), abs=1e-12)


def test_matches_closed_form_for_large_n() -> None:
    for n, c, k in [(200, 3, 1), (200, 3, 10), (200, 150, 100), (1000, 1, 999), (57, 0, 5)]:
        closed = 1 - comb(n - c, k) / comb(n, k)
        assert pass_at_k(n, c, k) == pytest.approx(closed, rel=1e-12, abs=1e-12)


def test_pass_at_1_is_the_pass_fraction() -> None:
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)
    assert pass_at_k(1, 1, 1) == 1.0
    assert pass_at_k(1, 0, 1) == 0.0


def test_stays_finite_where_binomials_overflow_floats() -> None:
    # C(2000, 1000) is ~1e600: float(comb(...)) would overflow.
    value = pass_at_k(2000, 1, 1000)
    assert value == pytest.approx(0.5)


@pytest.mark.parametrize(("n", "c", "k"), [(5, 6, 1), (5, -1, 1), (5, 2, 0), (5, 2, 6)])
def test_rejects_impossible_counts(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)

