"""PNG plots for the report (matplotlib, headless)."""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from linteval_ray.reduce.metrics import RunMetrics
from linteval_ray.schema.task import LINTEVAL_TASK


def _bar_png(labels: list[str], values: list[float], title: str, ylabel: str) -> bytes:
    fig, ax = plt.subplots(figsize=(6, 3.2), dpi=110)
    ax.bar(labels, values, color="#4C72B0")
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    for i, v in enumerate(values):
        ax.annotate(f"{v:.1f}", (i, v), ha="center", va="bottom", fontsize=8)
    ax.margins(y=0.15)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return buf.getvalue()


def plots(metrics: RunMetrics) -> dict[str, bytes]:
    """File name → PNG bytes."""
    langs = list(metrics.by_language)
    out = {
        "pass_rate_by_language.png": _bar_png(
            langs, [100 * (metrics.by_language[k].pass_at_1 or 0) for k in langs], "Pass@1 by language", "%"
        ),
    }
    if metrics.task == LINTEVAL_TASK:  # alerts are LintEval's
        out |= alert_plots(metrics, langs)
    if metrics.verdicts:
        names = sorted(metrics.verdicts, key=lambda k: -metrics.verdicts[k])
        out["verdicts.png"] = _bar_png(names, [float(metrics.verdicts[k]) for k in names], "Verdicts", "rows")
    return out


def alert_plots(metrics: RunMetrics, langs: list[str]) -> dict[str, bytes]:
    return {
        "reduction_by_language.png": _bar_png(
            langs, [100 * (metrics.by_language[k].reduction_at_p or 0) for k in langs],
            "Reduction@P by language", "%",
        ),
        "reduction_by_category.png": _bar_png(
            list(metrics.by_category),
            [100 * (c.reduction_at_p or 0) for c in metrics.by_category.values()],
            "Reduction@P by alert category", "%",
        ),
    }
