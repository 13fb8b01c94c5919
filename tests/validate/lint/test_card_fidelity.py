"""The default lint profile against the dataset card's real rows (see tests/card_rows.py)."""

from __future__ import annotations

import pytest

from linteval_ray.validate.lint import Linters
from tests.card_rows import (
    A1036_ORIGINAL,
    A1036_ORIGINAL_IDENTITIES,
    A1036_REVISED,
    A1036_REVISED_IDENTITIES,
    CPP_VIEWS,
    E1162_ORIGINAL,
    CppView,
)


def test_1036_a_original_and_revision_relint_to_their_records(linters: Linters) -> None:
    original, revised = linters.lint("py3", [A1036_ORIGINAL, A1036_REVISED])
    assert sorted(m.message_identity for m in original) == A1036_ORIGINAL_IDENTITIES
    assert sorted(m.message_identity for m in revised) == A1036_REVISED_IDENTITIES
    newline = next(m for m in original if m.check_name == "missing-final-newline")
    assert (newline.line, newline.column, newline.severity, newline.category) == (2, 0, "warning", "readability")


def test_1162_e_relints_to_its_two_alerts(linters: Linters) -> None:
    (messages,) = linters.lint("py3", [E1162_ORIGINAL])
    assert len(messages) == 2
    assert (messages[0].line, messages[0].column, messages[0].check_name) == (4, 0, "missing-final-newline")


@pytest.mark.parametrize("view", CPP_VIEWS, ids=lambda v: v.sample_id)
def test_no_cpp_alert_where_the_record_has_none(linters: Linters, view: CppView) -> None:
    (messages,) = linters.lint("cpp", [view.code])
    early = [m for m in messages if (m.line, m.column) < view.clean_before]
    assert early == [], f"{view.sample_id}: re-linted alerts before the record's first: {early}"
    if view.first_alert is not None:
        first = min(messages, key=lambda m: (m.line, m.column))
        assert (first.line, first.column, first.message_identity) == (
            view.first_alert.line, view.first_alert.column, view.first_alert.identity)


def test_broad_profile_disagrees_with_the_record(toolchain) -> None:
    """The reason the default changed: the old settings flag lines the record leaves clean."""
    from linteval_ray.validate.lint.profiles import load_profile
    from tests.card_rows import CPP_106C

    with Linters(toolchain, profile=load_profile("broad")) as broad:
        (messages,) = broad.lint("cpp", [CPP_106C.code])
    assert any((m.line, m.column) < CPP_106C.clean_before for m in messages)
