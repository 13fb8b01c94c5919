"""The results site (linteval_ray.report.site) in a real browser: Debian's chromium, headless.

Each browser test writes a site, opens it from ``file://`` (as a user does after copying the
folder), lets its scripts run and reads the resulting DOM back (``--dump-dom``), so what is
asserted is what a user would see. Skipped where chromium is not installed.
"""

from __future__ import annotations

import html.parser
import itertools
import json
import shutil
import subprocess
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar
from urllib.parse import quote

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from linteval_ray.config import ValidationConfig
from linteval_ray.load.loader import load_split
from linteval_ray.prompt.extract import extract
from linteval_ray.prompt.reasoning import split_reasoning
from linteval_ray.prompt.template import load_template
from linteval_ray.reduce.metrics import compute
from linteval_ray.report import chunks as chunks_module
from linteval_ray.report.alert_marks import alert_marks
from linteval_ray.report.chunks import chunk_count, chunk_of
from linteval_ray.report.compare import CompareRun, write_compare_site
from linteval_ray.report.sample_view import prompt_messages
from linteval_ray.report.site import write_site
from linteval_ray.schema import LintEvalRecord, LintMessage, ResultRow, Status, Verdict
from linteval_ray.schema.arrow import rows_to_table
from linteval_ray.schema.table import COLUMNS, ResultTable
from linteval_ray.store import RunFolder
from linteval_ray.validate.sample_metrics import sample_metrics

CHROMIUM = shutil.which("chromium")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not on PATH (Debian: apt-get install -y chromium): the site's "
    "browser tests need a real browser")
# Text that breaks out of a <script>, a tag or an attribute if anything is not escaped; each
# payload would mark the page (data-pwned) if it ever ran.
HOSTILE = ("</script><script>document.body.dataset.pwned='script'</script>"
           "<img src=x onerror=\"document.body.dataset.pwned='img'\">'\"&amp;<!-- ]]> \x1b[31m\x07\u2028end")
OUR_SCRIPTS = {"data/index.js", "assets/site.js", "assets/index.js", "assets/sample.js", "data/rows-0.js"}


# -- the browser -------------------------------------------------------------------------------------


@dataclass
class Node:
    tag: str
    attrs: dict[str, str]
    children: list[Node | str] = field(default_factory=list)

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def iter(self) -> Iterator[Node]:
        yield self
        for child in self.children:
            if isinstance(child, Node):
                yield from child.iter()

    def find_all(self, tag: str, **attrs: str) -> list[Node]:
        """Descendants with ``tag`` ("*": any) whose attributes hold ``attrs`` (class_: one of the classes)."""
        def fits(node: Node) -> bool:
            for name, wanted in attrs.items():
                name = name.rstrip("_").replace("_", "-")
                value = node.attrs.get(name)
                if value is None or (wanted not in value.split() if name == "class" else value != wanted):
                    return False
            return True
        return [n for n in self.iter() if (tag == "*" or n.tag == tag) and fits(n)]

    def by_id(self, id_: str) -> Node:
        found = self.find_all("*", id=id_)
        assert found, f"no element #{id_} on the page"
        return found[0]


class _TreeBuilder(html.parser.HTMLParser):
    VOID: ClassVar[set[str]] = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
                                "track", "wbr"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(node)
        if tag not in self.VOID:
            self.stack.append(node)

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def open_page(page: Path, fragment: str = "", tmp: Path | None = None) -> Node:
    """The DOM of ``page`` after its scripts ran, as chromium serializes it."""
    assert CHROMIUM is not None
    url = page.resolve().as_uri() + (f"#{fragment}" if fragment else "")
    profile = (tmp or page.parent) / ".chromium-profile"
    done = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", f"--user-data-dir={profile}",
         "--virtual-time-budget=10000", "--dump-dom", url],
        capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, f"chromium failed on {url}: {done.stderr[-2000:]}"
    builder = _TreeBuilder()
    builder.feed(done.stdout)
    return builder.root


# -- runs built cheaply from the bundled records ------------------------------------------------------


def bundled_records() -> list[LintEvalRecord]:
    loaded = load_split("bundled")
    assert not loaded.errors, loaded.errors
    return loaded.records


def made_up_row(record: LintEvalRecord, index: int, *, passed: bool, draw: int = 0,
                revised_code: str | None = None) -> ResultRow:
    """A scored row without running anything: the revision keeps every other alert and adds one."""
    original = list(record.linter_messages)
    new = LintMessage(tool=original[0].tool if original else "pylint", line=1, message_text="made-up new alert",
                      check_name="made-up-check", category="readability")
    revised = [*original[::2], new]
    code = revised_code if revised_code is not None else record.code.replace("\n", "\n\n", 1) + "// tail\n"
    return ResultRow(
        sample_id=record.sample_id, draw=draw, row_id=ResultRow.make_row_id(record.sample_id, draw),
        problem_id=record.problem_id, language=record.language, status=Status.EVALUATED, revised_code=code,
        # Two think blocks: the draft between them is reasoning too (scoring extracts after the last).
        raw_response=(f"<think>reasoning of row {index}</think>A draft:\n```\nnot the answer\n```\n"
                      f"<think>second thoughts</think>Here it is:\n```\n{code}```"), pass_at_1=passed,
        verdict=Verdict.PASSED if passed else Verdict.WRONG_ANSWER,
        validation_error=None if passed else "wrong_answer: test 3: expected 5, found 4",
        original_messages=original, revised_messages=revised,
        metrics=sample_metrics(record.code, code, original, revised, lambda family: family),
        timings={"total_s": float(index)},
    )


def made_up_run(records: list[LintEvalRecord], failing: Collection[str] = ()) -> list[ResultRow]:
    return [made_up_row(r, i, passed=r.sample_id not in failing) for i, r in enumerate(records)]


def fixed_alerts(row: ResultRow) -> int:
    assert row.metrics is not None
    return row.metrics.original_total_messages - row.metrics.old_messages_remaining


def site_of(tmp: Path, rows: list[ResultRow], records: list[LintEvalRecord], name: str = "run") -> Path:
    output = tmp / name
    write_site(RunFolder.open(str(output)), rows, compute(rows), records={r.sample_id: r for r in records})
    return output / "report"


@pytest.fixture(scope="module")
def records() -> list[LintEvalRecord]:
    return bundled_records()


def heading(page: Node) -> str:
    """The page's title line (a sample page's row id), or why the page shows none."""
    found = page.find_all("h1")
    assert found, f"no heading; the page says: {page.by_id('error').text() if page.find_all('*', id='error') else '-'}"
    return found[0].text()


def listed_rows(page: Node) -> list[str]:
    return [tr.attrs["data-row-id"] for tr in page.by_id("samples").find_all("tr", class_="sample-row")]


# -- index ------------------------------------------------------------------------------------------


@needs_chromium
def test_index_lists_every_sample_with_metrics_and_intervals(tmp_path: Path, records: list[LintEvalRecord]) -> None:
    failing = {r.sample_id for r in records[::3]}
    rows = made_up_run(records, failing)
    page = open_page(site_of(tmp_path, rows, records) / "index.html")

    assert sorted(listed_rows(page)) == sorted(r.row_id for r in rows)
    assert not [c for c in page.by_id("sample-browser").children if isinstance(c, str)], "stray text (null?)"
    assert page.by_id("row-count").text().startswith(f"{len(rows)} of {len(rows)} matching rows")
    tables = {h3.text(): h3 for h3 in page.find_all("h3")}
    assert "Metrics by language" in tables and "Lint agreement" in " ".join(tables)
    assert "95% CI" in page.text()
    failures = {tr.find_all("a")[0].text(): tr.find_all("td")[1].text()
                for tr in page.by_id("failures").find_all("tr") if tr.find_all("a")}
    assert failures == {"wrong_answer": str(len(failing))}


@needs_chromium
@pytest.mark.parametrize(("fragment", "keep"), [
    ("language=py3", lambda r: r.language == "py3"),
    ("verdict=wrong_answer", lambda r: not r.pass_at_1),
    ("language=cpp&verdict=passed", lambda r: r.language == "cpp" and r.pass_at_1),
    ("category=bugprone", lambda r: any(m.category == "bugprone" for m in r.original_messages)),
    ("q=lr03", lambda r: r.problem_id == "lr03"),
])
def test_filter_in_the_url_narrows_the_table(tmp_path: Path, records: list[LintEvalRecord], fragment: str,
                                             keep: Callable[[ResultRow], bool]) -> None:
    rows = made_up_run(records, {r.sample_id for r in records[::3]})
    expected = sorted(r.row_id for r in rows if keep(r))
    assert 0 < len(expected) < len(rows)

    page = open_page(site_of(tmp_path, rows, records) / "index.html", fragment)

    assert sorted(listed_rows(page)) == expected


@needs_chromium
def test_sort_by_time_descending(tmp_path: Path, records: list[LintEvalRecord]) -> None:
    rows = made_up_run(records)
    page = open_page(site_of(tmp_path, rows, records) / "index.html", "sort=-time_s")
    by_time = [r.row_id for r in sorted(rows, key=lambda r: -r.timings.total_s)]
    assert listed_rows(page) == by_time


# -- sample page -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def validated(records: list[LintEvalRecord]) -> tuple[list[ResultRow], list[LintEvalRecord]]:
    """Rows from a real validation (lint, compile, tests) of the dataset's reference revisions."""
    from linteval_ray.validate.engine import Validator

    # lr03_cpp_0's reference revision fixes, keeps and adds alerts; lr03_py3_0's fails a test.
    chosen = [r for r in records if r.sample_id in ("lr03_cpp_0", "lr03_py3_0")]
    try:
        validator = Validator(ValidationConfig())
    except Exception as exc:  # noqa: BLE001 - any missing tool means: cannot validate here
        pytest.skip(f"cannot validate on this machine: {exc}")
    try:
        rows = [validator.evaluate(r, {"raw_response": r.raw_response}) for r in chosen]
    finally:
        validator.close()
    if any(row.status != Status.EVALUATED for row in rows):
        pytest.skip(f"validation did not run here: {[row.error for row in rows]}")
    return rows, chosen


@needs_chromium
@pytest.mark.slow
def test_sample_page_shows_the_diff_and_every_alert_marked(
        tmp_path: Path, validated: tuple[list[ResultRow], list[LintEvalRecord]]) -> None:
    rows, records = validated
    site = site_of(tmp_path, rows, records)
    marks_seen = {mark for row in rows for mark in alert_marks(row.original_messages, row.revised_messages)[0]}
    marks_seen |= {mark for row in rows for mark in alert_marks(row.original_messages, row.revised_messages)[1]}
    assert marks_seen == {"fixed", "remaining", "new"} and not all(row.pass_at_1 for row in rows)
    for row in rows:
        assert row.metrics is not None
        m = row.metrics
        page = open_page(site / "sample.html", quote(row.row_id, safe=""), tmp_path)

        assert heading(page) == row.row_id
        assert not [c for c in page.by_id("sample").children if isinstance(c, str)], "stray text (null?)"
        assert page.by_id("verdict").text() == str(row.verdict)
        diff = page.by_id("diff")
        added = diff.find_all("td", class_="new")
        deleted = diff.find_all("td", class_="old")
        assert sum("inserted" in td.attrs["class"] or "changed" in td.attrs["class"] for td in added) == m.added_lines
        assert sum("deleted" in td.attrs["class"] or "changed" in td.attrs["class"] for td in deleted) \
            == m.deleted_lines
        listed = [tr.attrs["data-mark"] for tr in page.by_id("alert-list").find_all("tr") if "data-mark" in tr.attrs]
        assert listed.count("fixed") == fixed_alerts(row)
        assert listed.count("remaining") == m.old_messages_remaining
        assert listed.count("new") == m.new_messages_count
        on_lines = diff.find_all("div", class_="alert")
        assert sum(a.attrs["data-side"] == "original" for a in on_lines) == m.original_total_messages
        assert sum(a.attrs["data-side"] == "revised" for a in on_lines) == m.revised_total_messages
        if row.validation_error:
            assert page.by_id("validation-error").text() == row.validation_error
        failure = row.first_failure
        assert (failure is None) == row.pass_at_1
        if failure is not None:  # the verdict's test, its three texts exactly as recorded
            assert failure.output_excerpt is not None and failure.generator_command
            assert page.by_id("failure-input").text() == failure.input_excerpt
            assert page.by_id("failure-expected").text() == failure.expected_excerpt
            assert page.by_id("failure-output").text() == failure.output_excerpt
            generator = f"line {failure.generator_line}: {failure.generator_command}"
            assert page.by_id("failure-generator").text() == generator
            assert failure.output_excerpt != failure.expected_excerpt


@needs_chromium
def test_sample_page_places_alerts_on_their_line_and_collapses_reasoning(
        tmp_path: Path, records: list[LintEvalRecord]) -> None:
    record = records[0]
    row = made_up_row(record, 7, passed=False).model_copy(update={"prompt_version": load_template("v1").version_id})
    page = open_page(site_of(tmp_path, [row], [record]) / "sample.html", quote(row.row_id, safe=""), tmp_path)

    original_lines = record.code.split("\n")
    body = [n for n in page.by_id("diff").find_all("tbody")[0].children if isinstance(n, Node)]
    placed = []
    for above, notes in itertools.pairwise(body):
        if "notes" not in notes.attrs.get("class", ""):
            continue
        old_number, old_code = above.find_all("td")[:2]
        for alert in notes.find_all("td")[1].find_all("div", class_="alert"):
            assert alert.attrs["data-side"] == "original"
            assert alert.attrs["data-line"] == old_number.text(), "an alert sits below another line"
            placed.append((int(old_number.text()), alert.attrs["data-mark"], alert.find_all("b")[0].text()))
            assert old_code.text() == original_lines[int(old_number.text()) - 1]
    marks, _, _ = alert_marks(row.original_messages, row.revised_messages)
    expected = [(m.line, mark, m.check_name) for m, mark in zip(row.original_messages, marks, strict=True)]
    assert sorted(placed) == sorted(expected)
    assert {mark for _, mark, _ in placed} == {"fixed", "remaining"}
    reasoning = page.by_id("reasoning")
    assert reasoning.tag == "details" and "open" not in reasoning.attrs
    assert "reasoning of row 7" in reasoning.text() and "reasoning of row" not in page.by_id("answer").text()
    # The page cuts the response where scoring cut it: the draft between the blocks is reasoning.
    answer = split_reasoning(row.raw_response or "").answer
    assert answer is not None and page.by_id("answer").text() == answer.strip("\n")
    assert "A draft" in reasoning.text() and "second thoughts" in reasoning.text()
    assert extract(row.raw_response or "", record.language).code == row.revised_code
    assert page.by_id("validation-error").text() == "wrong_answer: test 3: expected 5, found 4"
    prompt = page.by_id("prompt")
    assert prompt.tag == "details" and record.code.split("\n")[2] in prompt.text()


@needs_chromium
def test_sample_without_a_revision_claims_no_fixes(tmp_path: Path, records: list[LintEvalRecord]) -> None:
    """No code block extracted: nothing was linted, so no alert may be shown as fixed."""
    record = records[1]
    row = ResultRow(sample_id=record.sample_id, row_id=f"{record.sample_id}/0", problem_id=record.problem_id,
                    language=record.language, status=Status.EVALUATED, verdict=Verdict.EXTRACTION_FAILED,
                    validation_error="extraction_failed: no_code_block", raw_response="I cannot help with that.",
                    original_messages=record.linter_messages)
    page = open_page(site_of(tmp_path, [row], [record]) / "sample.html", quote(row.row_id, safe=""), tmp_path)

    marks = [node.attrs["data-mark"] for node in page.find_all("*") if "data-mark" in node.attrs]
    assert marks and set(marks) == {"unscored"}
    assert "no revision was linted" in page.by_id("alert-counts").text()
    shown = [td.text() for td in page.by_id("diff").find_all("td", class_="code")]
    assert shown == record.code.rstrip("\n").split("\n")


@needs_chromium
def test_sample_pages_find_their_chunk_among_many(tmp_path: Path, records: list[LintEvalRecord]) -> None:
    """Python and JavaScript hash sample ids to the same chunk, non-ASCII ids included."""
    many = [r.model_copy(update={"sample_id": f"{r.sample_id}-ünï-{i}"}) for i in range(6) for r in records]
    rows = made_up_run(many)
    site = site_of(tmp_path, rows, many)
    chunks = chunk_count(len(rows))
    assert chunks > 1 and len(list((site / "data").glob("rows-*.js"))) == chunks
    picks = {chunk_of(r.sample_id, chunks): r for r in rows}  # one row per chunk
    for row in list(picks.values())[:4]:
        page = open_page(site / "sample.html", quote(row.row_id, safe=""), tmp_path)
        assert heading(page) == row.row_id
    assert "reasoning of row" not in (site / "data" / "index.js").read_text()  # the index holds summaries only


class CountedReads(ResultTable):
    """A ResultTable over a Parquet file that counts the row groups it reads."""

    reads = 0

    def _group(self, group: int) -> pa.Table:
        self.reads += 1
        return super()._group(group)


def test_site_reads_each_row_group_once_and_writes_the_same_files(
    tmp_path: Path, records: list[LintEvalRecord], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chunks scatter over the whole file (hashes of ids): the site routes rows to their range in
    one pass over the row groups (not one pass per range), and the files do not depend on the
    ranges or on where the rows are read from."""
    many = [r.model_copy(update={"sample_id": f"{r.sample_id}-{i}"}) for i in range(6) for r in records]
    rows = made_up_run(many)
    expected = site_of(tmp_path / "in-memory", rows, many)
    table = rows_to_table(rows)
    pq.write_table(table, tmp_path / "results.parquet", row_group_size=16)
    results = CountedReads(table.select(list(COLUMNS)), pq.ParquetFile(tmp_path / "results.parquet"))
    monkeypatch.setattr(chunks_module, "RANGE_ROWS", 32)  # every chunk (~60 rows) a range of its own
    chunks = chunk_count(len(rows))
    assert chunks >= 3
    output = tmp_path / "from-parquet" / "run"  # the same folder name: the same title
    write_site(RunFolder.open(str(output)), results, compute(rows), records={r.sample_id: r for r in many})
    assert results.reads == pq.ParquetFile(tmp_path / "results.parquet").num_row_groups == 15
    written = sorted(p.relative_to(output / "report") for p in (output / "report").rglob("*") if p.is_file())
    assert written == sorted(p.relative_to(expected) for p in expected.rglob("*") if p.is_file())
    for name in written:
        assert (output / "report" / name).read_bytes() == (expected / name).read_bytes(), name


# -- hostile text --------------------------------------------------------------------------------------


@needs_chromium
def test_hostile_text_is_shown_escaped_and_never_runs(tmp_path: Path, records: list[LintEvalRecord]) -> None:
    base = records[3]
    record = base.model_copy(update={"sample_id": f"evil{HOSTILE}", "problem_id": f"p{HOSTILE}",
                                     "title": HOSTILE, "code": f"x = 1  # {HOSTILE}\n" + base.code})
    row = made_up_row(record, 1, passed=False, revised_code=f"# {HOSTILE}\n" + base.code)
    row = row.model_copy(update={"validation_error": f"wrong_answer: {HOSTILE}", "raw_response": HOSTILE,
                                 "revised_messages": [*row.revised_messages, LintMessage(
                                     tool="pylint", line=1, message_text=HOSTILE, check_name="evil")]})
    site = site_of(tmp_path, [row], [record])

    index = open_page(site / "index.html", tmp=tmp_path)
    sample = open_page(site / "sample.html", quote(row.row_id, safe=""), tmp_path)

    for page in (index, sample):
        body = page.find_all("body")[0]
        assert "data-pwned" not in body.attrs, f"injected script ran: {body.attrs}"
        assert not [img for img in page.find_all("img") if img.attrs.get("src") == "x"], "injected element"
        sources = [script.attrs.get("src") for script in page.find_all("script")]
        assert set(sources) <= OUR_SCRIPTS, f"a script that is not ours: {sources}"
    assert listed_rows(index) == [row.row_id]
    assert heading(sample) == row.row_id
    shown = {td.text() for td in sample.by_id("diff").find_all("td", class_="code")}
    assert f"x = 1  # {HOSTILE}" in shown and f"# {HOSTILE}" in shown
    assert sample.by_id("validation-error").text() == f"wrong_answer: {HOSTILE}"
    assert sample.by_id("answer").text() == HOSTILE
    assert any(td.text() == HOSTILE for td in sample.by_id("alert-list").find_all("td"))


def test_data_files_hold_no_markup_and_only_ascii(tmp_path: Path, records: list[LintEvalRecord]) -> None:
    """Safe as scripts whatever the text, and the text survives the round trip unchanged."""
    record = records[0].model_copy(update={"code": f"{HOSTILE}\n\x00\ud7ff\n"})
    site = site_of(tmp_path, [made_up_row(record, 0, passed=True)], [record])
    loaded = {}
    for data in (site / "data").glob("*.js"):
        text = data.read_bytes()
        assert text.isascii() and b"<" not in text, data.name
        loaded[data.name] = json.loads(text[text.index(b"= {") + 2:].rstrip(b";\n"))
    assert loaded["rows-0.js"]["samples"][record.sample_id]["original"] == [HOSTILE, "\x00\ud7ff"]


# -- compare --------------------------------------------------------------------------------------------


@needs_chromium
def test_compare_lists_flips_linked_to_their_sample_pages(tmp_path: Path, records: list[LintEvalRecord]) -> None:
    lost, gained = records[2], records[5]  # pass in A only, in B only
    run_a = made_up_run(records, failing={gained.sample_id})
    run_b = made_up_run(records, failing={lost.sample_id})
    site_a = site_of(tmp_path, run_a, records, "a")
    site_b = site_of(tmp_path, run_b, records, "b")
    target = tmp_path / "compare"

    write_compare_site([CompareRun("model <A>", run_a, str(site_a)), CompareRun("model B", run_b, str(site_b))],
                       str(target))
    page = open_page(target / "compare.html", tmp=tmp_path)

    flips = page.find_all("tr", class_="flip")
    assert [tr.attrs["data-row-id"] for tr in flips] == [lost.sample_id + "/0", gained.sample_id + "/0"]
    assert "model <A>" in page.find_all("h2")[0].text()
    deltas = {tr.find_all("td")[0].text(): [td.text() for td in tr.find_all("td")]
              for tr in page.find_all("tr") if tr.find_all("td")}
    assert deltas["Pass@1"][3] == "+0.0 pp"  # one flip each way
    fixed = {tr.find_all("td")[0].text(): (int(tr.find_all("td")[1].text()), int(tr.find_all("td")[2].text()))
             for tr in page.find_all("table")[-1].find_all("tr") if tr.find_all("td")}
    assert sum(a_only for a_only, _ in fixed.values()) == fixed_alerts(run_a[2])  # only A passed it
    assert sum(b_only for _, b_only in fixed.values()) == fixed_alerts(run_b[5])
    link = flips[0].find_all("a")[1].attrs["href"]  # B's page of the row B lost
    path, fragment = link.split("#", 1)
    b_page = open_page((target / path).resolve(), fragment, tmp_path)
    assert b_page.by_id("verdict").text() == "wrong_answer"
    assert heading(b_page) == lost.sample_id + "/0"


# -- pure functions -----------------------------------------------------------------------------------


def test_prompt_is_shown_only_for_the_template_that_made_it(records: list[LintEvalRecord]) -> None:
    template = load_template("v1")
    assert prompt_messages(records[0], template.version_id) == template.render(records[0])
    assert prompt_messages(records[0], "v1@00000000") is None  # the template changed since the run
    assert prompt_messages(records[0], "none (replay)") is None


def test_alert_marks_match_the_metrics_multiset() -> None:
    def alert(line: int, check: str) -> LintMessage:
        return LintMessage(tool="pylint", line=line, message_text="m", check_name=check)
    original = [alert(5, "a"), alert(1, "a"), alert(2, "b"), alert(9, "c")]
    revised = [alert(3, "a"), alert(4, "d")]

    original_marks, revised_marks, pairs = alert_marks(original, revised)

    assert original_marks == ["fixed", "remaining", "fixed", "fixed"]  # the first "a" (line 1) remains
    assert revised_marks == ["remaining", "new"]
    assert pairs == {1: 3}


def test_chunks_of_a_column_are_chunk_of_each_id() -> None:
    ids = ["", "a", "lr01_cpp_0", "1000_A_py3_12~7", "é", "日本語_β", "x" * 300, "\U0001f600 id", "tab\tid"]
    column = pa.chunked_array([ids[:4], ids[4:]])
    for chunks in (1, 7, 64):
        assert chunks_module.chunks_of(column, chunks).tolist() == [chunks_module.chunk_of(i, chunks) for i in ids]
    sliced = pa.chunked_array([pa.array(ids).slice(3)])  # an array with an offset into its buffers
    assert chunks_module.chunks_of(sliced, 7).tolist() == [chunks_module.chunk_of(i, 7) for i in ids[3:]]
