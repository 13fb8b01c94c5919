"""CodeContests-O's section of ``metrics.json`` (``task_metrics``), beside the shared one.

The shared metrics (``reduce/metrics.py``) already hold Pass@1 with its Wilson interval overall and
by language, the statuses, verdicts, exclusions and generation health. Here, over the same rows
(``invalid_input`` and ``infra_error`` rows left out, ``invalid_problem`` rows counted as failed):

- ``pass_at_k``: the unbiased pass@k (Chen et al.) for every k up to the fewest draws of a sample,
  with a 95 % percentile bootstrap interval over samples (a sample is a problem in one language);
- the same by language, and by every facet the rows carry (difficulty, source, Codeforces rating);
- ``problems``: per sample, its draws, how many passed, its pass rate and its verdicts.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, Field

from linteval_ray.languages.registry import language_names
from linteval_ray.reduce.intervals import bootstrap_ratio
from linteval_ray.reduce.passk import pass_at_k
from linteval_ray.schema import Status
from linteval_ray.schema.table import ResultTable

EXCLUDED = {Status.INVALID_INPUT.value, Status.INFRA_ERROR.value}
FACETS = ("difficulty", "source", "cf_rating")


class PassAtK(BaseModel):
    value: float
    ci: list[float] | None = Field(default=None, description="95 % bootstrap interval over samples [low, high]")


class GroupPassAtK(BaseModel):
    samples: int
    draws: int = Field(description="the fewest draws of a sample: k runs up to it")
    pass_at_k: dict[str, PassAtK]


class SampleRate(BaseModel):
    sample_id: str
    problem_id: str | None
    language: str | None
    draws: int
    passed: int
    pass_rate: float
    verdicts: dict[str, int]


class CodeContestsMetrics(BaseModel):
    overall: GroupPassAtK
    by_language: dict[str, GroupPassAtK]
    by_facet: dict[str, dict[str, GroupPassAtK]] = Field(
        default_factory=dict, description="facet (difficulty, source, cf_rating) -> its value -> pass@k")
    problems: list[SampleRate] = Field(default_factory=list, description="per sample, sorted by sample id")


class _Sample:
    def __init__(self, problem_id: str | None, language: str | None, facets: dict[str, str]) -> None:
        self.problem_id, self.language, self.facets = problem_id, language, facets
        self.outcomes: list[bool] = []
        self.verdicts: Counter[str] = Counter()


def task_metrics(results: ResultTable) -> dict[str, Any]:
    samples = _samples(results.dicts(("sample_id", "problem_id", "language", "facets", "status", "verdict",
                                      "pass_at_1")))
    by_language: dict[str, list[_Sample]] = defaultdict(list)
    by_facet: dict[str, dict[str, list[_Sample]]] = defaultdict(lambda: defaultdict(list))
    for sample in samples.values():
        by_language[sample.language or "?"].append(sample)
        for facet, value in sample.facets.items():
            by_facet[facet][value].append(sample)
    metrics = CodeContestsMetrics(
        overall=group(samples.values()),
        by_language={language: group(by_language[language]) for language in _languages(by_language)},
        by_facet={facet: {value: group(members) for value, members in sorted(values.items())}
                  for facet, values in sorted(by_facet.items(), key=lambda item: _facet_order(item[0]))},
        problems=[SampleRate(sample_id=sample_id, problem_id=s.problem_id, language=s.language, draws=len(s.outcomes),
                             passed=sum(s.outcomes), pass_rate=sum(s.outcomes) / len(s.outcomes),
                             verdicts=dict(sorted(s.verdicts.items())))
                  for sample_id, s in sorted(samples.items())],
    )
    return metrics.model_dump(mode="json")


def _samples(rows: Iterable[dict[str, Any]]) -> dict[str, _Sample]:
    samples: dict[str, _Sample] = {}
    for row in rows:
        if row["status"] in EXCLUDED:
            continue
        facets = dict(row["facets"] or [])  # Arrow maps come back as (key, value) pairs
        sample = samples.setdefault(row["sample_id"], _Sample(row["problem_id"], row["language"], facets))
        sample.outcomes.append(bool(row["pass_at_1"]))
        sample.verdicts[row["verdict"] or row["status"]] += 1
    return samples


def group(samples: Iterable[_Sample]) -> GroupPassAtK:
    """pass@k of ``samples`` for every k up to their fewest draws, each with its interval."""
    members = [s for s in samples if s.outcomes]
    if not members:
        return GroupPassAtK(samples=0, draws=0, pass_at_k={})
    draws = min(len(s.outcomes) for s in members)
    ks: dict[str, PassAtK] = {}
    for k in range(1, draws + 1):
        scores = [pass_at_k(len(s.outcomes), sum(s.outcomes), k) for s in members]
        ks[f"pass@{k}"] = PassAtK(value=sum(scores) / len(scores), ci=bootstrap_ratio(scores, [1.0] * len(scores)))
    return GroupPassAtK(samples=len(members), draws=draws, pass_at_k=ks)


def _languages(seen: Iterable[str]) -> list[str]:
    """The languages in the registry's order (reports' order), then any other."""
    known = language_names()
    return [*(name for name in known if name in seen), *sorted(set(seen) - set(known))]


def _facet_order(facet: str) -> int:
    return FACETS.index(facet) if facet in FACETS else len(FACETS)
