"""Confidence intervals: Wilson for Pass@1, bootstrap over samples for Reduction@P."""

from __future__ import annotations

import pytest

from linteval_ray.reduce.intervals import bootstrap_ratio, paired_bootstrap_delta, wilson


def test_wilson_matches_the_textbook_values():
    assert wilson(5, 10) == pytest.approx([0.2366, 0.7634], abs=1e-4)
    low, high = wilson(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-4)
    assert wilson(0, 0) is None


def test_bootstrap_of_a_ratio_of_sums_brackets_it_and_narrows_with_more_samples():
    numerators, denominators = [3, 0, 5, 1, 2] * 4, [4, 2, 5, 3, 2] * 4
    point = sum(numerators) / sum(denominators)
    small = bootstrap_ratio(numerators, denominators)
    large = bootstrap_ratio(numerators * 25, denominators * 25)
    assert small is not None and large is not None
    assert small[0] < point < small[1] and large[0] < point < large[1]
    assert large[1] - large[0] < small[1] - small[0]
    assert bootstrap_ratio(numerators, denominators) == small  # seeded: the same rows, the same interval
    assert bootstrap_ratio([0, 0], [0, 0]) is None


def test_paired_delta_of_a_run_with_itself_is_zero_and_a_real_gain_excludes_zero():
    a = ([1, 0, 2, 1] * 10, [2, 2, 2, 2] * 10)
    assert paired_bootstrap_delta(a, a) == [0.0, 0.0]
    better = ([2, 1, 2, 2] * 10, [2, 2, 2, 2] * 10)
    low, high = paired_bootstrap_delta(a, better)
    assert 0 < low < high
