"""Per-sample metrics against the worked examples of the dataset card."""

from __future__ import annotations

import pytest

from linteval_ray.schema import LintMessage
from linteval_ray.validate.sample_metrics import line_changes, remaining_count, sample_metrics


def _msg(check: str, text: str = "m", category: str = "readability", line: int = 1) -> LintMessage:
    return LintMessage(tool="t", line=line, message_text=text, check_name=check, category=category)


def _identity(family: str) -> str:
    return family


def test_card_1036_A_py3_line_churn_and_reduction():
    original = (
        'n,k = list(map(int, input().split(" ")))\n'
        "print(max(n,k)//min(n,k) if max(n,k)%min(n,k)==0 else max(n,k)//min(n,k)+1)"
    )
    revised = (
        'n, k = list(map(int, input().split(" ")))\n'
        "print(max(n, k) // min(n, k) if not max(n, k) % min(n, k) else max(n, k) // min(n, k) + 1)"
    )
    final_newline = _msg("missing-final-newline", "Final newline missing", line=2)
    docstring = _msg("missing-module-docstring", "Missing module docstring")
    compare = _msg("use-implicit-booleaness-not-comparison-to-zero", "Use not", "refactor")
    metrics = sample_metrics(
        original, revised, [final_newline, docstring, compare], [final_newline, docstring], _identity
    )
    # Card: 3 -> 2, 2 remaining, 0 new, mrr 0.3333, churn 2 (2 added + 2 deleted over 2 lines).
    assert (metrics.original_total_messages, metrics.revised_total_messages) == (3, 2)
    assert metrics.old_messages_remaining == 2
    assert metrics.new_messages_count == 0
    assert metrics.mrr_at_pass == pytest.approx(0.3333333333)
    assert (metrics.added_lines, metrics.deleted_lines) == (2, 2)
    assert metrics.line_churn_at_pass == pytest.approx(2.0)
    assert (metrics.original_loc, metrics.revised_loc) == (2, 2)


def test_card_1007_D_cpp_counts():
    # 55 alerts in, 17 out, of which 13 were there before and 4 are new (card row 1007_D_cpp_0).
    original = [_msg(f"check-{i}") for i in range(55)]
    revised = original[:13] + [_msg(f"new-{i}") for i in range(4)]
    metrics = sample_metrics("a\n" * 299, "a\n" * 299, original, revised, _identity)
    assert metrics.old_messages_remaining == 13
    assert metrics.new_messages_count == 4
    assert metrics.mrr_at_pass == pytest.approx(0.6909090909)


def test_remaining_is_a_multiset_match_on_identity_not_line():
    a = _msg("c", "same", line=3)
    moved = _msg("c", "same", line=40)
    assert remaining_count([a, a, a], [moved]) == 1
    assert remaining_count([a], [moved, moved]) == 1
    assert remaining_count([a], [_msg("c", "other text")]) == 0


def test_line_changes_counts_changed_lines_both_ways():
    assert line_changes("a\nb\nc\n", "a\nB\nc\nd\n") == (2, 1)
    assert line_changes("x\n", "x\n") == (0, 0)


def test_category_counts_split_remaining_and_new_by_category():
    def rollup(family: str) -> str:
        return {"bugprone": "error-prone", "readability": "style"}.get(family, "other")

    original = [_msg("b1", category="bugprone"), _msg("r1", category="readability")]
    revised = [_msg("r1", category="readability"), _msg("r2", category="readability")]
    counts = {c.category: c for c in sample_metrics("a", "a", original, revised, rollup).category_counts}
    assert counts["error-prone"].model_dump() == {
        "category": "error-prone", "original": 1, "revised": 0, "remaining": 0, "new": 0,
    }
    assert (counts["style"].original, counts["style"].revised) == (1, 2)
    assert (counts["style"].remaining, counts["style"].new) == (1, 1)


def test_no_alerts_in_gives_no_ratio():
    assert sample_metrics("a", "a", [], [], _identity).mrr_at_pass is None


def test_category_mrr_per_category_of_the_original():
    nullptr = _msg("modernize-use-nullptr", "use nullptr", "modernize")
    braces = _msg("readability-braces-around-statements", "statement should be inside braces", "readability")
    new = _msg("bugprone-x", "new", "bugprone")
    metrics = sample_metrics("a\n", "b\n", [nullptr, nullptr, braces], [nullptr, new], _identity)
    # modernize: 2 in, 1 out; readability: 1 in, 0 out; bugprone has no alert in, so no ratio
    assert metrics.category_mrr == {"modernize": 0.5, "readability": 1.0}


def test_lint_agreement_is_a_multiset_overlap():
    from linteval_ray.validate.sample_metrics import lint_agreement

    a, b, c = _msg("a"), _msg("b"), _msg("c")
    agreement = lint_agreement([a, a, b], [a, b, b, c])
    assert (agreement.recorded, agreement.relinted, agreement.matched, agreement.exact) == (3, 4, 2, False)
    assert lint_agreement([a, b], [b, a]).exact
