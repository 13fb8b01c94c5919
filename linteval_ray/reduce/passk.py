"""Unbiased pass@k (Chen et al. 2021, "Evaluating Large Language Models Trained on Code").

With ``n`` draws per sample of which ``c`` pass, the probability that at least one of
``k`` draws taken without replacement passes is ``1 - C(n-c, k) / C(n, k)``. The
binomials overflow floats for large ``n``; the product form
``1 - prod_{i=n-c+1}^{n} (1 - k / i)`` is the same number and stays stable.
"""

from __future__ import annotations


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased estimate of pass@k for one sample with ``c`` of ``n`` draws passing."""
    if not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got c={c}, n={n}")
    if not 1 <= k <= n:
        raise ValueError(f"need 1 <= k <= n, got k={k}, n={n}")
    if n - c < k:
        return 1.0
    survive = 1.0
    for i in range(n - c + 1, n + 1):
        survive *= 1.0 - k / i
    return 1.0 - survive

