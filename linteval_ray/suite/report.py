"""The suite's report: metric tables (terminal, report.md) and the verifier cards (``report/``).

``report/index.html`` holds the tables and every problem with its TPR, TNR, false negatives, false
positives and culprit tests, each linking to its card, ``report/cards/<id>.html``: which tests
reject which correct solutions (with the first failing test's input, expected answer, output, their
line diff, the checker's message and the evidence), which incorrect solutions pass every test (with
their code), and the tests that reject no incorrect solution. Pages are static, Python-rendered
with every text escaped (``report/html.py``: its policy forbids scripts): they open from a folder or
any static host. A card shows a few solutions of each kind (``CARD_EXAMPLES``), read back from the
shards of their units, problem by problem, a batch of problems at a time.
"""

from __future__ import annotations

import difflib
import hashlib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.parquet as pq

from linteval_ray.report.html import escape, page, write_assets
from linteval_ray.report.tables import Table, interval, pct, to_html
from linteval_ray.store.folder import RunFolder
from linteval_ray.store.fs import join
from linteval_ray.suite.metrics import Aggregate, ProblemRates, SuiteMetrics
from linteval_ray.suite.pools import Label
from linteval_ray.suite.rows import SuiteRow, table_rows

CARD_EXAMPLES = 6  # solutions of each kind a card shows whole
NAMED = 50  # solutions a card names per culprit test, and incorrect ones that pass
PER_TEST_EXAMPLES = 2  # false negatives a card shows per first failing test
CARDS_AT_ONCE = 500  # problems whose examples are read back together
CARDS_DIR = "cards"


def aggregate_table(title: str, groups: dict[str, Aggregate]) -> Table:
    rows = []
    for name, group in groups.items():
        for variant, rates in (("macro", group.macro), ("intersection", group.intersection),
                               ("pooled", group.pooled)):
            rows.append([name, variant, pct(rates.tpr.value), interval(rates.tpr.ci), pct(rates.tnr.value),
                         interval(rates.tnr.ci), pct(rates.average), str(rates.tpr.problems),
                         f"{group.accepted}/{group.correct}", f"{group.rejected}/{group.incorrect}"])
    return Table(title=title, headers=["group", "average over", "TPR", "95% CI", "TNR", "95% CI", "avg",
                                       "problems (TPR)", "correct accepted", "incorrect rejected"], rows=rows)


def metric_tables(metrics: SuiteMetrics) -> list[Table]:
    tables = [aggregate_table("TPR / TNR", {"overall": metrics.overall, **metrics.by_language})]
    if metrics.python2 is not None:
        py2 = metrics.python2
        tables.append(aggregate_table("Python 2 solutions: run as Python 2 vs on Python 3 (the published harness)",
                                      {"py2 as Python 2": py2.as_python2, "py2 on Python 3": py2.as_python3,
                                       "overall, py2 on Python 3": py2.overall_if_python3}))
    tables.append(Table(title="solutions", headers=["status", "rows"],
                        rows=[[status, str(count)] for status, count in metrics.statuses.items()]))
    if metrics.dialects:
        tables.append(Table(title="compiled as", headers=["as", *Label],
                            rows=[[name, *(str(counts.get(label, 0)) for label in Label)]
                                  for name, counts in metrics.dialects.items()]))
    return tables


def card_name(problem: str) -> str:
    """A card's file name: a slug of the problem's name and a hash (names hold any character)."""
    slug = "".join(char if char.isalnum() else "-" for char in problem)[:40].strip("-")
    return f"{slug}-{hashlib.sha256(problem.encode()).hexdigest()[:10]}.html"


@dataclass
class Examples:
    """What a card names and shows, chosen as the shards stream by: the misjudged solutions' names (a
    few per culprit test, a few incorrect ones that pass) and, for a few of each, where their rows are
    (shard, row), to show them whole."""

    culprit_names: dict[tuple[str, int], list[str]] = field(default_factory=lambda: defaultdict(list))
    passing_names: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    false_negatives: dict[str, list[tuple[int, int]]] = field(default_factory=lambda: defaultdict(list))
    false_positives: dict[str, list[tuple[int, int]]] = field(default_factory=lambda: defaultdict(list))
    _per_test: dict[tuple[str, int], int] = field(default_factory=lambda: defaultdict(int))

    def add(self, shard: int, table: pa.Table) -> None:
        columns = table.select(["solution_id", "problem", "label", "status", "accepted", "failed_tests"]).to_pylist()
        for row_number, row in enumerate(columns):
            if row["status"] != "evaluated" or row["accepted"] is None:
                continue
            problem = row["problem"]
            if row["label"] == Label.CORRECT and not row["accepted"]:
                for test in row["failed_tests"] or ():
                    if len(names := self.culprit_names[(problem, test)]) < NAMED:
                        names.append(row["solution_id"])
                first = (row["failed_tests"] or [-1])[0]
                chosen = self.false_negatives[problem]
                if len(chosen) < CARD_EXAMPLES and self._per_test[(problem, first)] < PER_TEST_EXAMPLES:
                    self._per_test[(problem, first)] += 1
                    chosen.append((shard, row_number))
            elif row["label"] == Label.INCORRECT and row["accepted"]:
                if len(names := self.passing_names[problem]) < NAMED:
                    names.append(row["solution_id"])
                if len(self.false_positives[problem]) < CARD_EXAMPLES:
                    self.false_positives[problem].append((shard, row_number))


def write_site(folder: RunFolder, metrics: SuiteMetrics, examples: Examples, shards: Sequence[str],
               title: str) -> str:
    """``report/``: the index and a card per problem; returns the index's URL."""
    site, store = folder.site, folder.store
    write_assets(site, store, names=("site.css",))
    write_assets(join(site, CARDS_DIR), store, names=("site.css",))
    problems = metrics.problems
    for start in range(0, len(problems), CARDS_AT_ONCE):
        batch = problems[start:start + CARDS_AT_ONCE]
        rows = _read_back(folder, shards, examples, [p.problem for p in batch])
        for rates in batch:
            body = _card(rates, rows.get(rates.problem, {}), examples, metrics.stop_at_first_failure)
            store.write_atomic(join(site, CARDS_DIR, card_name(rates.problem)),
                               page(f"{rates.problem}: verifier card", body).encode())
    index = join(site, "index.html")
    store.write_atomic(index, page(title, _index(title, metrics)).encode())
    return index


def _read_back(folder: RunFolder, shards: Sequence[str], examples: Examples, problems: list[str],
               ) -> dict[str, dict[tuple[int, int], SuiteRow]]:
    """The example rows of ``problems``, each shard they are in read once."""
    wanted: dict[int, list[tuple[str, int]]] = defaultdict(list)
    for problem in problems:
        for shard, row in (*examples.false_negatives.get(problem, ()), *examples.false_positives.get(problem, ())):
            wanted[shard].append((problem, row))
    found: dict[str, dict[tuple[int, int], SuiteRow]] = defaultdict(dict)
    for shard, picks in sorted(wanted.items()):
        table = pq.read_table(pa.BufferReader(folder.store.read_bytes(shards[shard])))
        taken = table_rows(table.take(pa.array([row for _, row in picks], pa.int64())))
        for (problem, row), suite_row in zip(picks, taken, strict=True):
            found[problem][(shard, row)] = suite_row
    return found


def _index(title: str, metrics: SuiteMetrics) -> str:
    tables = "".join(to_html(table) for table in metric_tables(metrics))
    head = ("<tr><th>problem</th><th class='num'>TPR</th><th class='num'>correct accepted</th><th class='num'>TNR"
            "</th><th class='num'>incorrect rejected</th><th class='num'>tests</th><th>tests rejecting correct "
            "solutions</th></tr>")
    body = "".join(
        f"<tr><td><a href='{CARDS_DIR}/{escape(card_name(p.problem))}'>{escape(p.problem)}</a></td>"
        f"<td class='num'>{pct(p.tpr)}</td><td class='num'>{p.accepted}/{p.correct}</td>"
        f"<td class='num'>{pct(p.tnr)}</td><td class='num'>{p.rejected}/{p.incorrect}</td>"
        f"<td class='num'>{p.tests}</td><td>{escape(_culprits(p))}</td></tr>" for p in metrics.problems)
    invalid = "".join(f"<li>{escape(name)}: {escape(why)}</li>" for name, why in metrics.invalid_problems.items())
    notes = f"<h2>Problems that cannot judge</h2><ul>{invalid}</ul>" if invalid else ""
    stop = ("<p class='note'>Judged with --stop-at-first-failure: a rejected solution ran its tests up to its first "
            "failing one; the tests a card lists are among those run.</p>" if metrics.stop_at_first_failure else "")
    definitions = "".join(f"<li><b>{escape(k)}</b>: {escape(v)}</li>" for k, v in metrics.definitions.items())
    return (f"<h1>{escape(title)}</h1>{stop}{tables}<details><summary>definitions</summary><ul>{definitions}</ul>"
            f"</details>{notes}<h2>Problems</h2><table><thead>{head}</thead><tbody>{body}</tbody></table>")


def _culprits(rates: ProblemRates) -> str:
    return ", ".join(f"test {test} ({count})" for test, count in rates.culprit_tests.items())


def _card(rates: ProblemRates, rows: dict[tuple[int, int], SuiteRow], examples: Examples, stopped: bool) -> str:
    facts = (f"<table class='facts'><tr><th>TPR</th><td>{pct(rates.tpr)} ({rates.accepted}/{rates.correct} correct "
             f"solutions accepted)</td></tr><tr><th>TNR</th><td>{pct(rates.tnr)} ({rates.rejected}/{rates.incorrect} "
             f"incorrect solutions rejected)</td></tr><tr><th>tests</th><td>{rates.tests}</td></tr></table>")
    culprits = "".join(f"<tr><td class='num'>{test}</td><td class='num'>{count}</td><td>"
                       f"{_names(examples.culprit_names.get((rates.problem, test), []), count)}</td></tr>"
                       for test, count in rates.culprit_tests.items())
    culprit_table = (f"<h2>Tests that reject correct solutions</h2><table><thead><tr><th>test</th><th>correct "
                     f"solutions it rejects</th><th>which</th></tr></thead><tbody>{culprits}</tbody></table>"
                     if culprits else "<h2>Tests that reject correct solutions</h2><p>None.</p>")
    idle = [str(test) for test in range(rates.tests) if test not in rates.catching_tests]
    idle_note = (f"<h2>Tests that reject no incorrect solution</h2><p>{escape(', '.join(idle))}</p>"
                 if idle and rates.incorrect and not stopped else "")
    negatives = [rows[ref] for ref in examples.false_negatives.get(rates.problem, ()) if ref in rows]
    positives = [rows[ref] for ref in examples.false_positives.get(rates.problem, ()) if ref in rows]
    shown = f" ({len(negatives)} shown)" if negatives else ""
    fn = "".join(_false_negative(row) for row in negatives) or "<p>None.</p>"
    passing = rates.incorrect - rates.rejected
    fp = (f"<p>{_names(examples.passing_names.get(rates.problem, []), passing)}</p>"
          + "".join(_false_positive(row) for row in positives)) if passing else "<p>None.</p>"
    note = "<p class='note'>Judged with --stop-at-first-failure: later failing tests were not run.</p>" if stopped \
        else ""
    return (f"<p class='nav'><a href='../index.html'>all problems</a></p><h1>{escape(rates.problem)}</h1>{facts}"
            f"{note}{culprit_table}{idle_note}<h2>Correct solutions the tests reject{shown}</h2>{fn}"
            f"<h2>Incorrect solutions that pass every test ({passing})</h2>{fp}")


def _names(names: list[str], count: int) -> str:
    more = f" and {count - len(names)} more" if count > len(names) else ""
    return ", ".join(escape(name) for name in names) + more


def _false_negative(row: SuiteRow) -> str:
    failure = row.first_failure
    tests = ", ".join(str(test) for test in row.failed_tests) or "-"
    head = (f"<h3>{escape(row.solution_id)}</h3><p>{escape(row.language or '?')} (judged as "
            f"{escape(row.judged_as or '?')}): <span class='verdict bad'>{escape(row.verdict or '')}</span>; "
            f"rejected by tests {escape(tests)} of the {row.tests_run} run</p>")
    if failure is None:  # a compile error
        detail = f"<pre>{escape(row.error or '')}</pre>"
    else:
        diff = "\n".join(difflib.unified_diff(failure.expected_excerpt.splitlines(),
                                              (failure.output_excerpt or "").splitlines(), "expected", "output",
                                              lineterm="", n=2))
        detail = (f"<p>first failing test {failure.test_index}: {escape(failure.ended)}; "
                  f"{escape(failure.evidence or '')}</p><div class='excerpts'>"
                  f"<div><h4>input</h4><pre>{escape(failure.input_excerpt)}</pre></div>"
                  f"<div><h4>expected</h4><pre>{escape(failure.expected_excerpt)}</pre></div>"
                  f"<div><h4>output</h4><pre>{escape(failure.output_excerpt or '(not run)')}</pre></div></div>"
                  f"<h4>diff</h4><pre>{escape(diff or '(the same text: the checker decided)')}</pre>"
                  f"<h4>checker / stderr</h4><pre>{escape(failure.message)}</pre>")
    return head + detail + _code(row)


def _false_positive(row: SuiteRow) -> str:
    return (f"<h3>{escape(row.solution_id)}</h3><p>{escape(row.language or '?')} (judged as "
            f"{escape(row.judged_as or '?')}): passes all {row.tests_passed} tests</p>{_code(row)}")


def _code(row: SuiteRow) -> str:
    if row.code is None:
        return ""
    cut = " (cut)" if row.code_truncated else ""
    return f"<details><summary>code{cut}</summary><pre>{escape(row.code)}</pre></details>"
