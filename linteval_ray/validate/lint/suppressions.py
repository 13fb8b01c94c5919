"""Inline lint suppressions made inert, so a revision is linted as if it had none.

A revision that only adds ``// NOLINT`` or ``# pylint: disable=all`` fixes nothing. Scoring
lints ``neutralize_added_suppressions(language, original, revision).code`` instead of the code
as written. The program is still compiled and judged as written. The neutralised text has the
same lines, and every character outside a suppression stays where it was (C++: the same UTF-8
byte columns, which clang-tidy reports; Python and Java: the same character columns). It parses
exactly as before, so every other alert keeps its line, column and message.

Only comments, preprocessor / pragma directives and annotation values are touched. Ordinary
string literals and code are not (``printf("// NOLINT")`` is neither changed nor counted), and
neither are the forms the tools honour outside comments, with one exception a language's rules
name (``SuppressionRules.raw_word``: clang-tidy's ``NOLINT``, see below).

Which directives each linter honours, how each is disarmed and counted, and what is not handled
is its language's business: ``linteval_ray/languages/<lang>/suppressions.py`` (the
``SuppressionRules`` of its spec). Every behaviour there was checked against the pinned tools;
tests/validate/lint/test_suppressions.py re-checks each handled form: as written it lints to
fewer alerts, neutralised to exactly the alerts and positions of the program without it.
"""

from __future__ import annotations

from collections import Counter

from linteval_ray.languages.registry import language as language_spec
from linteval_ray.validate.lint.directives import Edit, Neutralized, Suppression, apply_edits


def neutralize_suppressions(language: str, code: str) -> Neutralized:
    """``code`` as its linter would see it without the suppressions it holds.

    Code without a suppression comes back as the very same string, count 0."""
    found = find_suppressions(language, code)
    edits = [edit for suppression in found for edit in suppression.edits]
    return Neutralized(code=apply_edits(code, edits) if edits else code, count=len(found))


def neutralize_added_suppressions(language: str, original: str, revision: str) -> Neutralized:
    """``revision`` as scoring lints it: the suppressions it ADDS to ``original`` made inert.

    Suppressions already in the original are the dataset's business (the original is linted as
    written), so a revision that keeps one keeps its effect: directives are matched by form and
    text, as a multiset. ``count`` is the number of directives added. A word the linter honours
    anywhere in the text (the rules' ``raw_word``, C++'s ``NOLINT``): when the original has none
    at all, every remaining one in the revision is disarmed too (the linted copy only)."""
    kept = Counter(_signature(original, s) for s in find_suppressions(language, original))
    edits: list[Edit] = []
    added = 0
    for suppression in find_suppressions(language, revision):
        signature = _signature(revision, suppression)
        if kept[signature] > 0:
            kept[signature] -= 1
            continue
        added += 1
        edits += suppression.edits
    code = apply_edits(revision, edits) if edits else revision
    raw_word = language_spec(language).suppressions.raw_word
    if raw_word is not None:
        word, inert = raw_word
        if word not in original and word in code:
            added += code.count(word)
            code = code.replace(word, inert)
    return Neutralized(code=code, count=added)


def _signature(code: str, suppression: Suppression) -> tuple[str, tuple[str, ...]]:
    return suppression.form, tuple(code[edit.start:edit.end].strip() for edit in suppression.edits)


def count_suppressions(language: str, code: str) -> int:
    """How many suppression directives ``code`` holds (see the language's rules)."""
    return len(find_suppressions(language, code))


def find_suppressions(language: str, code: str) -> list[Suppression]:
    """Every suppression directive in ``code``, in source order."""
    found = language_spec(language).suppressions.find(code)
    return sorted(found, key=lambda suppression: suppression.line)
