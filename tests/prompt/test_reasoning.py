"""The one reasoning rule: scoring, token counts and the results browser cut a response alike."""

from __future__ import annotations

import pytest

from linteval_ray.prompt.reasoning import Reasoned, reasoning_text, split_reasoning
from linteval_ray.report.sample_view import reasoning_and_answer


@pytest.mark.parametrize(("raw", "expected"), [
    ("<think>plan</think>\n\nanswer\n", Reasoned("<think>plan</think>", "answer\n")),
    ("plan only</think>answer", Reasoned("plan only</think>", "answer")),  # the template opened the block
    ("<think>cut off by max_tokens", Reasoned("<think>cut off by max_tokens", None)),
    ("no reasoning at all", Reasoned(None, "no reasoning at all")),
    ("<THINK>a</Think>draft<think>b</think>final", Reasoned("<THINK>a</Think>draft<think>b</think>", "final")),
])
def test_the_answer_starts_after_the_last_closing_tag(raw: str, expected: Reasoned) -> None:
    assert split_reasoning(raw) == expected


def test_the_page_shows_the_answer_scoring_used_and_the_rest_as_reasoning() -> None:
    raw = "<think>first</think>\nA draft: x = 1\n<think>second</think>\n\nx = 2\n"
    reasoning, answer = reasoning_and_answer(raw)
    assert split_reasoning(raw).answer == "x = 2\n" and answer == "x = 2"  # shown without the final newline
    assert reasoning == "first</think>\nA draft: x = 1\n<think>second"
    assert reasoning_text("\n<think>only</think>\n") == "only"
    assert reasoning_and_answer("<think>never closed") == ("never closed", "")
