"""95 % confidence intervals: Wilson for proportions, a percentile bootstrap over samples for
ratios of sums (Reduction@P), and a paired bootstrap for the difference of two runs.

Bootstraps resample *samples* (the benchmark's unit), with a fixed seed, so the same rows give
the same interval on every machine.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

Z_95 = 1.959963984540054
RESAMPLES = 1000
SEED = 0
_CHUNK = 100  # resamples drawn at once: bounds memory at ~_CHUNK x samples counts


def wilson(successes: int, n: int, z: float = Z_95) -> list[float] | None:
    """Wilson score interval of successes / n (None when n is 0)."""
    if n == 0:
        return None
    p = successes / n
    denominator = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return [max(0.0, center - half), min(1.0, center + half)]


def _resample_weights(n: int, rng: np.random.Generator, count: int) -> np.ndarray:
    """``count`` bootstrap resamples of ``n`` samples, as how often each sample is drawn."""
    return rng.multinomial(n, np.full(n, 1.0 / n), size=count)


def _bootstrap(statistic_parts: Sequence[np.ndarray], combine: Callable[..., np.ndarray], resamples: int,
               seed: int) -> list[float] | None:
    """Percentile interval of ``combine(*(Σ weights x part))`` over bootstrap resamples."""
    n = len(statistic_parts[0])
    if n == 0:
        return None
    rng = np.random.default_rng(seed)
    values: list[np.ndarray] = []
    for start in range(0, resamples, _CHUNK):
        weights = _resample_weights(n, rng, min(_CHUNK, resamples - start))
        values.append(combine(*(weights @ part for part in statistic_parts)))
    flat = np.concatenate(values)
    flat = flat[np.isfinite(flat)]
    if not flat.size:
        return None
    low, high = np.percentile(flat, [2.5, 97.5])
    return [float(low), float(high)]


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1), np.nan)


def bootstrap_ratio(numerators: Sequence[float], denominators: Sequence[float], resamples: int = RESAMPLES,
                    seed: int = SEED) -> list[float] | None:
    """Interval of Σ numerator / Σ denominator, resampling the per-sample pairs."""
    if not any(denominators):
        return None
    return _bootstrap([np.asarray(numerators, float), np.asarray(denominators, float)], _ratio, resamples, seed)


def paired_bootstrap_delta(a: tuple[Sequence[float], Sequence[float]], b: tuple[Sequence[float], Sequence[float]],
                           resamples: int = RESAMPLES, seed: int = SEED) -> list[float] | None:
    """Interval of ratio(b) - ratio(a) over the same samples (each given as numerators, denominators):
    one resample picks the same samples for both runs, so their shared difficulty cancels out."""
    if not a[0]:
        return None
    parts = [np.asarray(x, float) for x in (*a, *b)]

    def delta(num_a: np.ndarray, den_a: np.ndarray, num_b: np.ndarray, den_b: np.ndarray) -> np.ndarray:
        difference: np.ndarray = _ratio(num_b, den_b) - _ratio(num_a, den_a)  # numpy types `-` as Any
        return difference

    return _bootstrap(parts, delta, resamples, seed)
