"""``OUTPUT/report/``: a static results browser (index, sample pages) and ``compare.html``.

The site is plain files with relative links, so it opens from a local folder (``file://``), after
``aws s3 sync`` or on any static host, with no server and no network at view time.

Data travels as JavaScript files loaded by ``<script src>``, not JSON fetched by the page: Chromium
refuses fetch()/XHR of local files under ``file://``. ``data/index.js`` holds one summary line per
row (what the sample table needs); the full rows (programs, diff, alerts, raw response) are split
into ``data/rows-<k>.js`` by a hash of the sample id, which ``assets/site.js`` computes the same way,
so a sample page loads one chunk of ~``ROWS_PER_CHUNK`` rows whatever the run's size.

Program text and model output are hostile: the data files are JSON with every non-ASCII character
and ``<`` escaped (inert even if pasted into a ``<script>``), the pages insert text only through
``textContent``, Python-rendered HTML goes through ``html.escape``, and a Content-Security-Policy
forbids inline scripts and handlers, so an injection that got past the escaping could not run.
"""

from __future__ import annotations

import difflib
import html
import json
import math
import os
import posixpath
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from typing import Any, NamedTuple, Protocol
from urllib.parse import quote, urlsplit

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from linteval_ray.prompt.template import PromptError, PromptInputs, PromptTemplate, load_template
from linteval_ray.reduce.intervals import RESAMPLES, paired_bootstrap_delta
from linteval_ray.reduce.metrics import EXCLUDED_STATUSES, RunMetrics
from linteval_ray.report.originals import ORIGINAL_SCHEMA, Original, read_originals, spill_originals
from linteval_ray.report.plots import plots
from linteval_ray.report.tables import Table, metric_tables, num, pct, to_html
from linteval_ray.schema import LintEvalRecord, ResultRow, Status, Verdict
from linteval_ray.schema.arrow import result_schema
from linteval_ray.schema.record import to_unicode
from linteval_ray.schema.table import ResultTable
from linteval_ray.store.folder import RunFolder, compare_page
from linteval_ray.store.fs import ObjectStore
from linteval_ray.store.spill import Buckets

ROWS_PER_CHUNK = 64
# Rows (as Arrow) read back at once from their temporary file: chunks are hashes of ids, so one
# pass over results.parquet routes every row to its range's file; bigger ranges, more memory.
RANGE_ROWS = 4096
ASSETS = ("site.css", "site.js", "index.js", "sample.js")
# default-src 'none': no network, no inline script or handler; 'self' still matches file:// pages.
CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'"

Json = dict[str, Any]
# A result row's SITE_COLUMNS as Arrow's to_pylist gives them: the values a model would hold
# (the schema is the model's), without building one per row.
Row = dict[str, Any]
SITE_COLUMNS = ("row_id", "sample_id", "draw", "language", "problem_id", "status", "verdict", "pass_at_1",
                "validation_error", "error", "model", "prompt_version", "tokens_used", "tests_generated",
                "tests_passed", "tests_failed", "tests_dropped", "timings", "first_failure", "metrics",
                "lint_agreement", "suppressions_added", "lint_error", "revised_code", "raw_response",
                "original_messages", "revised_messages")


# -- public entry points -------------------------------------------------------------------------


def write_site(
    folder: RunFolder,
    rows: ResultTable | Sequence[ResultRow],
    metrics: RunMetrics,
    *,
    records: Mapping[str, LintEvalRecord] | Iterable[Original] | None = None,
    title: str | None = None,
) -> str:
    """Write ``OUTPUT/report/`` for one run and return the URL of its ``index.html``.

    ``records`` are the dataset records of the samples (by sample_id, or as a stream of their
    ``Original`` parts), the only place the original program (and the prompt's inputs) live;
    without them sample pages show the revision and alerts alone. Rows and originals are in
    memory one range of chunks at a time (a run's rows never sit in memory together)."""
    results = rows if isinstance(rows, ResultTable) else ResultTable.of_rows(rows)
    originals = (Original.of_record(r) for r in records.values()) if isinstance(records, Mapping) else records or ()
    site, store = folder.site, folder.store
    title = title or f"LintEval results: {folder.name}"
    chunks = chunk_count(len(results))
    _write_assets(site, store)
    for name, png in plots(metrics).items():
        store.write_atomic(f"{site}/plots/{name}", png)
    summaries = _write_chunks(site, store, results, originals, chunks)
    head = f'window.LINTEVAL_INDEX = {{"fields":{safe_json(list(SUMMARY_FIELDS))},"rows":['.encode()
    index_js = summaries.joined(head, b"]};\n")
    del summaries
    store.write_atomic(f"{site}/data/index.js", bytes(index_js))
    store.write_atomic(f"{site}/index.html", index_page(title, results, metrics).encode())
    store.write_atomic(f"{site}/sample.html", sample_page(title, chunks).encode())
    return f"{site}/index.html"


def _write_chunks(site: str, store: ObjectStore, results: ResultTable, originals: Iterable[Original],
                  chunks: int) -> IndexLines:
    """Every ``data/rows-<k>.js``, one range of chunks at a time; returns each row's line of the
    index."""
    summaries = IndexLines(len(results))
    members = rows_by_chunk(chunks_of(results.arrow("sample_id"), chunks), chunks)
    ranges = chunk_ranges(members)
    range_of_chunk = [number for number, (first, last) in enumerate(ranges) for _ in range(first, last)]
    with Buckets("linteval-site-", result_schema()) as spilled, \
            Buckets("linteval-originals-", ORIGINAL_SCHEMA) as shown:
        # one pass over the split and one over the table's row groups route each original and
        # each row to its range's file
        complete = spill_originals(originals, lambda sample_id: range_of_chunk[chunk_of(sample_id, chunks)], shown)
        results.spill(range_of_rows(members, ranges, len(results)), spilled)
        for number, (first, last) in enumerate(ranges):
            taken: list[Row] = spilled.read(number).select(list(SITE_COLUMNS)).to_pylist()  # in the table's order
            in_range = sorted(i for k in range(first, last) for i in members[k])
            position = {index: p for p, index in enumerate(in_range)}  # row index -> row of `taken`
            records = read_originals(shown, number) if complete else {}
            lines: dict[int, str] = {}
            for k in range(first, last):
                chunk_rows = [taken[position[i]] for i in members[k]]
                for index, row in zip(members[k], chunk_rows, strict=True):
                    lines[index] = safe_json(summary_of(row, records.get(row["sample_id"])))
                target = f"(window.LINTEVAL_CHUNKS = window.LINTEVAL_CHUNKS || {{}})[{k}]"
                part = chunk_of_rows(chunk_rows, records)
                store.write_atomic(f"{site}/data/rows-{k}.js", js_assignment(target, part))
            summaries.add(lines)
    return summaries


class IndexLines:
    """Each row's line of ``data/index.js`` (ASCII JSON), kept as one bytes object per range of
    chunks and each line's place in it. A small object per row kept across the ranges pinned
    pymalloc's pools (freed only when every block is) among each range's freed rows: the RSS grew
    by ~60 MB at 100k rows beyond the lines themselves."""

    def __init__(self, rows: int) -> None:
        self._blobs: list[bytes] = []
        self._blob = np.zeros(rows, np.int64)  # by row index: its blob, and its line's bytes in it
        self._start = np.zeros(rows, np.int64)
        self._end = np.zeros(rows, np.int64)

    def add(self, lines: Mapping[int, str]) -> None:
        """The lines of one range, by row index."""
        parts = [line.encode() for line in lines.values()]
        lengths = np.fromiter(map(len, parts), np.int64, len(parts))
        indices = np.fromiter(lines.keys(), np.int64, len(lines))
        self._blob[indices] = len(self._blobs)
        self._end[indices] = np.cumsum(lengths)
        self._start[indices] = self._end[indices] - lengths
        self._blobs.append(b"".join(parts))

    def joined(self, head: bytes, tail: bytes) -> bytearray:
        """``head``, every row's line in row order separated by commas, ``tail``."""
        views = [memoryview(blob) for blob in self._blobs]
        out = bytearray(head)
        for index, (blob, start, end) in enumerate(zip(self._blob, self._start, self._end, strict=True)):
            if index:
                out += b","
            out += views[blob][start:end]
        out += tail
        return out


class CompareRun(NamedTuple):
    """One run to compare: a display name, its rows, and (to link sample pages) its site folder."""

    name: str
    rows: Sequence[ResultRow]
    site: str | None = None  # the run's OUTPUT/report folder, as write_site wrote it


def write_compare_site(
    runs: Sequence[CompareRun | tuple[str, Sequence[ResultRow]] | tuple[str, Sequence[ResultRow], str | None]],
    target: str,
    store: ObjectStore | None = None,
) -> str:
    """Write ``<target>/compare.html`` (the first run against each other one) and return its URL."""
    compared = [CompareRun(*run) for run in runs]
    if len(compared) < 2:
        raise ValueError("compare needs at least two runs")
    target, store = target.rstrip("/"), store or ObjectStore()
    sections = [compare_section(compared[0], other, target) for other in compared[1:]]
    title = "LintEval runs compared: " + " vs ".join(run.name for run in compared)
    body = f"<h1>{_e(title)}</h1>" + "".join(sections)
    return write_styled_page(compare_page(target), title, body, store)


def write_styled_page(url: str, title: str, body: str, store: ObjectStore) -> str:
    """A static page in the site's style at ``url``, its stylesheet written beside it
    (``assets/site.css``); ``body`` is HTML whose text the caller escaped. Returns ``url``."""
    folder = url.rsplit("/", 1)[0]
    store.write_atomic(f"{folder}/assets/site.css", _asset("site.css"))
    store.write_atomic(url, _page(title, body).encode())
    return url


# -- data: chunking and encoding -----------------------------------------------------------------


def chunk_count(rows: int) -> int:
    return max(1, math.ceil(rows / ROWS_PER_CHUNK))


def chunk_of(sample_id: str, chunks: int) -> int:
    """FNV-1a (32 bit) of the id's UTF-8 bytes, modulo ``chunks``; ``LintEval.chunkOf`` in site.js
    is the same function, so a sample page finds its chunk from the id alone. Draws of a sample
    share a chunk (and its original program)."""
    digest = 0x811C9DC5
    for byte in to_unicode(sample_id).encode():  # lone surrogates -> U+FFFD, as TextEncoder does
        digest = ((digest ^ byte) * 0x01000193) & 0xFFFFFFFF
    return digest % chunks


def chunks_of(sample_ids: pa.ChunkedArray, chunks: int) -> npt.NDArray[np.int64]:
    """``chunk_of`` of every id of a string column, computed on its UTF-8 bytes over all the ids at
    once (one step per byte position), not id by id in Python (~0.3 s at 100k rows)."""
    ids = sample_ids.combine_chunks()
    if not pa.types.is_string(ids.type) or ids.null_count:
        raise TypeError(f"sample ids must be non-null strings, not {ids.type}")
    offsets = np.frombuffer(ids.buffers()[1], np.int32)[ids.offset:ids.offset + len(ids) + 1].astype(np.int64)
    data = np.frombuffer(ids.buffers()[2] or b"", np.uint8)
    starts, lengths = offsets[:-1], np.diff(offsets)
    digest = np.full(len(ids), 0x811C9DC5, np.uint64)  # < 2**32, so digest * prime never overflows
    for position in range(int(lengths.max(initial=0))):
        live = lengths > position
        byte = data[starts[live] + position].astype(np.uint64)
        digest[live] = ((digest[live] ^ byte) * np.uint64(0x01000193)) & np.uint64(0xFFFFFFFF)
    return (digest % np.uint64(chunks)).astype(np.int64)


def safe_json(value: Any) -> str:
    """JSON with only ASCII and no ``<``: safe inside a script, whatever the text."""
    return json.dumps(value, ensure_ascii=True, separators=(",", ":")).replace("<", "\\u003c")


def js_assignment(target: str, value: Any) -> bytes:
    """``target = <value as safe JSON>;``"""
    return f"{target} = {safe_json(value)};\n".encode()


def rows_by_chunk(chunk_of_row: npt.NDArray[np.int64], chunks: int) -> list[list[int]]:
    """The row indices of each chunk (``chunk_of_row[index]``), in the table's order."""
    order = np.argsort(chunk_of_row, kind="stable")
    ends = np.searchsorted(chunk_of_row[order], np.arange(1, chunks + 1))
    return [part.tolist() for part in np.split(order, ends[:-1])]


def chunk_ranges(members: Sequence[Sequence[int]]) -> list[tuple[int, int]]:
    """Consecutive chunks ``[first, last)`` of about ``RANGE_ROWS`` rows together."""
    ranges, first, rows = [], 0, 0
    for k, indices in enumerate(members):
        rows += len(indices)
        if rows >= RANGE_ROWS:
            ranges.append((first, k + 1))
            first, rows = k + 1, 0
    if first < len(members):
        ranges.append((first, len(members)))
    return ranges


def range_of_rows(members: Sequence[Sequence[int]], ranges: Sequence[tuple[int, int]], rows: int) -> list[int]:
    """Each row's range (its number in ``ranges``), by row index."""
    range_of = [0] * rows
    for number, (first, last) in enumerate(ranges):
        for k in range(first, last):
            for index in members[k]:
                range_of[index] = number
    return range_of


def chunk_of_rows(rows: Sequence[Row], records: Mapping[str, Original]) -> Json:
    """One ``data/rows-<k>.js``: the details of its rows and of the samples they belong to."""
    part: Json = {"samples": {}, "rows": {}}
    for row in rows:
        record = records.get(row["sample_id"])
        if row["sample_id"] not in part["samples"]:
            part["samples"][row["sample_id"]] = sample_detail(row, record)
        part["rows"][row["row_id"]] = row_detail(row, record)
    return part


# -- data: what the index and the sample pages show ----------------------------------------------

UNSCORED = "unscored"
SUMMARY_FIELDS = ("row_id", "language", "problem", "title", "outcome", "alerts_in", "alerts_out", "alerts_new",
                  "lines_changed", "time_s", "categories")


def outcome_of(row: ResultRow) -> str:
    return outcome(row.verdict, row.status)


def outcome(verdict: str | None, status: str) -> str:
    """The verdict of an evaluated row, else why it was not evaluated (its status)."""
    return str(verdict) if verdict is not None else str(status)


def summary_of(row: Row, record: Original | None) -> list[Any]:
    """The row's line in data/index.js, in SUMMARY_FIELDS order (arrays: ~13k of them)."""
    m = row["metrics"]
    return [
        row["row_id"],
        row["language"],
        row["problem_id"],
        record.title if record is not None else None,
        outcome(row["verdict"], row["status"]),
        m["original_total_messages"] if m else len(row["original_messages"]),
        m["revised_total_messages"] if m else None,
        m["new_messages_count"] if m else None,
        m["added_lines"] + m["deleted_lines"] if m else None,
        round(row["timings"]["total_s"], 2),
        alert_categories(row),
    ]


def alert_categories(row: Row) -> list[str]:
    """Categories with an alert in the original or the revision, rolled up as the metrics do."""
    m = row["metrics"]
    if m and m["category_counts"]:
        return [c["category"] for c in m["category_counts"] if c["original"] or c["revised"]]
    return sorted({a["category"] for a in [*row["original_messages"], *row["revised_messages"]]})


def sample_detail(row: Row, record: Original | None) -> Json:
    """What draws of one sample share: the problem, the original program, the prompt."""
    if record is None:
        return {"problem_id": row["problem_id"], "title": None, "original": None, "prompt": None}
    return {
        "problem_id": record.problem_id,
        "title": record.title,
        "original": lines_of(record.code),
        "prompt": prompt_messages(record, row["prompt_version"]),
    }


_DETAIL_METRICS_EXCLUDED = ("category_counts", "category_mrr")  # the page shows totals, not per category


def row_detail(row: Row, record: Original | None) -> Json:
    original, revised_alerts, metrics = row["original_messages"], row["revised_messages"], row["metrics"]
    original_marks, revised_marks, pairs = alert_marks(_located(original), _located(revised_alerts))
    if metrics is None:  # no revision was linted (none extracted, generation failed): nothing was fixed
        original_marks = [UNSCORED] * len(original)
    reasoning, answer = split_reasoning(row["raw_response"])
    revised = lines_of(row["revised_code"]) if row["revised_code"] is not None else None
    return {
        "row_id": row["row_id"],
        "sample_id": row["sample_id"],
        "draw": row["draw"],
        "language": row["language"],
        "outcome": outcome(row["verdict"], row["status"]),
        "passed": row["pass_at_1"],
        "validation_error": row["validation_error"],
        "error": row["error"],
        "model": row["model"],
        "prompt_version": row["prompt_version"],
        "tokens_used": row["tokens_used"],
        "tests": {"generated": row["tests_generated"], "passed": row["tests_passed"], "failed": row["tests_failed"],
                  "dropped": row["tests_dropped"]},
        "timings": row["timings"],
        "first_failure": row["first_failure"],
        "metrics": ({k: v for k, v in metrics.items() if k not in _DETAIL_METRICS_EXCLUDED}
                    if metrics is not None else None),
        "lint_agreement": row["lint_agreement"],
        "suppressions_added": row["suppressions_added"],
        "lint_error": row["lint_error"],
        "revised": revised,
        "diff": line_diff(lines_of(record.code), revised) if record is not None and revised is not None else None,
        "original_alerts": [_alert(m, mark, pairs.get(i)) for i, (m, mark) in
                            enumerate(zip(original, original_marks, strict=True))],
        "revised_alerts": [_alert(m, mark) for m, mark in zip(revised_alerts, revised_marks, strict=True)],
        "reasoning": reasoning,
        "response": answer,
    }


def _alert(message: Json, mark: str, revised_line: int | None = None) -> Json:
    alert = {"line": message["line"], "column": message["column"], "tool": message["tool"],
             "check": message["check_name"], "category": message["category"], "text": message["message_text"],
             "mark": mark}
    if revised_line is not None:
        alert["revised_line"] = revised_line
    return alert


def lines_of(code: str) -> list[str]:
    """Lines as linters number them: split at ``\\n`` only (str.splitlines also breaks at form feeds
    and other separators, which would shift every alert below them); a CRLF's ``\\r`` is dropped."""
    lines = code.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def line_diff(original: list[str], revised: list[str]) -> list[list[Any]]:
    """difflib opcodes ``[tag, i1, i2, j1, j2]`` (tags e, r, d, i): the page lays both sides out."""
    matcher = difflib.SequenceMatcher(None, original, revised, autojunk=False)
    return [[tag[0], i1, i2, j1, j2] for tag, i1, i2, j1, j2 in matcher.get_opcodes()]


class Located(Protocol):
    """Where an alert is and what it says: a ``LintMessage``, or an ``AlertKey`` of a row's alert."""

    @property
    def line(self) -> int: ...
    @property
    def column(self) -> int: ...
    @property
    def message_identity(self) -> str: ...


class AlertKey(NamedTuple):
    line: int
    column: int
    message_identity: str


def _located(messages: Sequence[Json]) -> list[AlertKey]:
    return [AlertKey(m["line"], m["column"], m["message_identity"]) for m in messages]


def alert_marks(
    original: Sequence[Located], revised: Sequence[Located]
) -> tuple[list[str], list[str], dict[int, int]]:
    """Each original alert ``fixed`` or ``remaining``, each revised one ``remaining`` or ``new``.

    As the metrics count (multiset intersection of ``message_identity``): for an identity found
    a times in the original and b times in the revision, min(a, b) remain. The k-th occurrences
    (in line order) are paired, so a remaining alert can point at its line in the revision; the
    third value maps original index -> revised line of the pair."""
    original_marks = ["fixed"] * len(original)
    revised_marks = ["new"] * len(revised)
    pairs: dict[int, int] = {}
    if not revised:  # nothing to pair (no revision, or one without alerts): skip sorting the original's
        return original_marks, revised_marks, pairs
    revised_by_identity = _indices_by_identity(revised)
    for identity, original_indices in _indices_by_identity(original).items():
        for i, j in zip(original_indices, revised_by_identity.get(identity, []), strict=False):  # min(a, b) pairs
            original_marks[i] = revised_marks[j] = "remaining"
            pairs[i] = revised[j].line
    return original_marks, revised_marks, pairs


def _indices_by_identity(messages: Sequence[Located]) -> dict[str, list[int]]:
    by_identity: dict[str, list[int]] = defaultdict(list)
    for i in sorted(range(len(messages)), key=lambda i: (messages[i].line, messages[i].column)):
        by_identity[messages[i].message_identity].append(i)
    return by_identity


_THINK_OPEN = re.compile(r"<think>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think>", re.IGNORECASE)


def split_reasoning(raw: str | None) -> tuple[str | None, str | None]:
    """(reasoning, answer) of a raw response: the text inside ``<think>...</think>``, and the rest.

    Handles an unclosed ``<think>`` (cut off by max_tokens: all of it is reasoning) and a lone
    ``</think>`` (chat templates that open the block in the prompt: all before it is reasoning)."""
    if raw is None:
        return None, None
    reasoning: list[str] = []
    answer: list[str] = []
    rest = raw
    lone_close = _THINK_CLOSE.search(rest)
    if lone_close and not _THINK_OPEN.search(rest, 0, lone_close.start()):
        reasoning.append(rest[: lone_close.start()])
        rest = rest[lone_close.end():]
    while (opening := _THINK_OPEN.search(rest)) is not None:
        answer.append(rest[: opening.start()])
        closing = _THINK_CLOSE.search(rest, opening.end())
        reasoning.append(rest[opening.end(): closing.start() if closing else len(rest)])
        rest = rest[closing.end():] if closing else ""
    answer.append(rest)
    thoughts = "\n\n".join(part.strip("\n") for part in reasoning)
    return (thoughts if reasoning else None), "".join(answer).strip("\n")


def prompt_messages(record: PromptInputs, prompt_version: str | None) -> list[dict[str, str]] | None:
    """The chat prompt the row was generated from, when the template on disk is the one recorded
    (``v1@<digest>``); an edited template, a replay or an unknown version shows no prompt."""
    template = shown_template(prompt_version)
    return template.render(record) if template is not None else None


def shows_prompts(prompt_versions: Iterable[str | None]) -> bool:
    """Whether any of these rows' pages shows its prompt (else the records' alerts are not needed)."""
    return any(shown_template(version) is not None for version in set(prompt_versions))


def shown_template(prompt_version: str | None) -> PromptTemplate | None:
    """The template a row's prompt is shown with: the one on disk, if it is the one recorded."""
    if not prompt_version or "@" not in prompt_version:
        return None
    version, digest = prompt_version.rsplit("@", 1)
    try:
        template = load_template(version)
    except PromptError:
        return None
    return template if template.digest == digest else None


# -- pages -----------------------------------------------------------------------------------------


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _page(title: str, body: str, scripts: Iterable[str] = (), body_attrs: str = "") -> str:
    tags = "".join(f"<script src='{_e(src)}'></script>" for src in scripts)
    return ("<!doctype html><html lang='en'><head><meta charset='utf-8'>"
            f"<meta http-equiv='Content-Security-Policy' content=\"{CSP}\">"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<title>{_e(title)}</title><link rel='stylesheet' href='assets/site.css'></head>"
            f"<body{body_attrs}>{body}{tags}</body></html>\n")


def index_page(title: str, results: ResultTable, metrics: RunMetrics) -> str:
    summary = (f"{metrics.n_samples} samples, {metrics.draws} draw(s) each, {len(results)} rows; "
               f"{metrics.excluded} rows not scored (invalid input or evaluator fault).")
    parts = [f"<h1>{_e(title)}</h1><p>{_e(summary)} <a href='#browser'>Browse the samples</a>.</p>"]
    parts += [f"<p class='warning'><strong>Warning:</strong> {_e(w)}</p>" for w in metrics.warnings()]
    parts += [to_html(table) for table in metric_tables(metrics)]
    parts.append(failures_html(results))
    parts.append(to_html(generation_table(results)))
    parts.append("<h3>Plots</h3><div class='plots'>"
                 + "".join(f"<img src='plots/{_e(n)}' alt='{_e(n)}'>" for n in plots_names(metrics)) + "</div>")
    parts.append("<h2 id='browser'>Samples</h2><div id='sample-browser'>"
                 "<p class='loading'>Loading the sample table (needs JavaScript)…</p></div>")
    return _page(title, "".join(parts), scripts=["data/index.js", "assets/site.js", "assets/index.js"])


def plots_names(metrics: RunMetrics) -> list[str]:
    names = ["pass_rate_by_language.png", "reduction_by_language.png", "reduction_by_category.png"]
    return names + (["verdicts.png"] if metrics.verdicts else [])


def failures_html(results: ResultTable) -> str:
    """Rows that did not pass, by verdict (or status), each count linking to the filtered table."""
    counts = Counter(verdict if verdict is not None else status for verdict, status, passed in
                     zip(results.column("verdict"), results.column("status"), results.column("pass_at_1"),
                         strict=True) if not passed)  # outcome_of, from the columns
    body = "".join(
        f"<tr><td><a href='#verdict={quote(name, safe='')}'>{_e(name)}</a></td><td>{count}</td>"
        f"<td>{_e(pct(count / len(results)))}</td></tr>"
        for name, count in counts.most_common()
    ) or "<tr><td colspan='3'>every row passed</td></tr>"
    return ("<h3>Failures by verdict</h3><table id='failures'><thead><tr><th>verdict / status</th>"
            f"<th>rows</th><th>share of rows</th></tr></thead><tbody>{body}</tbody></table>")


def generation_table(results: ResultTable) -> Table:
    """Did the model answer usefully: errors, unextractable answers, tokens spent."""
    tokens = sorted(t for t in results.column("tokens_used") if t is not None)
    generation_errors = sum(s == Status.GENERATION_ERROR for s in results.column("status"))
    unextracted = sum(v == Verdict.EXTRACTION_FAILED for v in results.column("verdict"))
    return Table(title="Generation health", headers=["", "rows"], rows=[
        ["generation errors (backend failed)", str(generation_errors)],
        ["no code block extracted", str(unextracted)],
        ["revisions with added suppressions", str(sum(bool(n) for n in results.column("suppressions_added")))],
        ["tokens used: median / max", f"{tokens[len(tokens) // 2]} / {tokens[-1]}" if tokens else "-"],
    ])


def sample_page(title: str, chunks: int) -> str:
    """One static page for every row: sample.js reads ``#<row_id>`` and loads that row's chunk."""
    body = (f"<p class='nav'><a href='index.html'>← {_e(title)}</a></p>"
            "<div id='sample'><p class='loading'>Loading the sample (needs JavaScript)…</p></div>")
    return _page(f"Sample · {title}", body, scripts=["assets/site.js", "assets/sample.js"],
                 body_attrs=f" data-chunks='{chunks}'")


def _write_assets(site: str, store: ObjectStore) -> None:
    for name in ASSETS:
        store.write_atomic(f"{site}/assets/{name}", _asset(name))


def _asset(name: str) -> bytes:
    return (resources.files("linteval_ray.report") / "assets" / name).read_bytes()


# -- compare ---------------------------------------------------------------------------------------


class SampleParts(NamedTuple):
    """One sample's numerators and denominators (draws summed), the unit the bootstrap resamples."""

    passed: float
    draws: float
    reduced: float  # Σ(in − out) over passing draws
    alerts_in: float  # Σ in over passing draws
    new: float
    lines_changed: float


# (label, metrics.json field, numerator field, denominator field, shown as a percentage)
COMPARED_METRICS = (
    ("Pass@1", "pass_at_1", "passed", "draws", True),
    ("Reduction@P", "reduction_at_p", "reduced", "alerts_in", True),
    ("New@P", "new_at_p", "new", "alerts_in", True),
    ("ΔLine@P", "delta_line_at_p", "lines_changed", "passed", False),
)


class PairedDelta(NamedTuple):
    """One metric of B against A over the same samples: each value, B − A and its paired bootstrap
    95 % interval."""

    label: str
    key: str  # the metric's name in metrics.json
    percent: bool
    a: float | None
    b: float | None
    delta: float | None
    ci: list[float] | None


def scored_rows(rows: Sequence[ResultRow]) -> dict[str, ResultRow]:
    """Rows in the metrics' ``n`` (invalid input and evaluator faults excluded), by row_id."""
    return {row.row_id: row for row in rows if row.status not in EXCLUDED_STATUSES}


def sample_parts(rows: Iterable[ResultRow]) -> dict[str, SampleParts]:
    sums: dict[str, list[float]] = defaultdict(lambda: [0.0] * len(SampleParts._fields))
    for row in rows:
        part = sums[row.sample_id]
        part[1] += 1
        if row.pass_at_1 and row.metrics is not None:
            m = row.metrics
            part[0] += 1
            part[2] += m.original_total_messages - m.revised_total_messages
            part[3] += m.original_total_messages
            part[4] += m.new_messages_count
            part[5] += m.added_lines + m.deleted_lines
    return {sample_id: SampleParts(*values) for sample_id, values in sums.items()}


def paired_deltas(a: Sequence[SampleParts], b: Sequence[SampleParts]) -> list[PairedDelta]:
    """Per compared metric: A, B, B − A and its paired bootstrap 95 % interval (``a`` and ``b``: the
    same samples, in the same order)."""
    deltas = []
    for label, key, numerator, denominator, percent in COMPARED_METRICS:
        parts_a = ([getattr(p, numerator) for p in a], [getattr(p, denominator) for p in a])
        parts_b = ([getattr(p, numerator) for p in b], [getattr(p, denominator) for p in b])
        value_a, value_b = _ratio_of_sums(*parts_a), _ratio_of_sums(*parts_b)
        delta = None if value_a is None or value_b is None else value_b - value_a
        ci = paired_bootstrap_delta(parts_a, parts_b)
        deltas.append(PairedDelta(label, key, percent, value_a, value_b, delta, ci))
    return deltas


def metric_deltas(a: Sequence[SampleParts], b: Sequence[SampleParts]) -> list[list[str]]:
    """Per metric: value in A, in B, B − A and its paired bootstrap 95 % interval (same samples)."""
    table = []
    for d in paired_deltas(a, b):
        show = pct if d.percent else num
        table.append([d.label, show(d.a), show(d.b), _signed(d.delta, d.percent), _interval(d.ci, d.percent),
                      _reading(d.ci)])
    return table


def _interval(ci: list[float] | None, percent: bool) -> str:
    return "-" if ci is None else f"{_signed(ci[0], percent)} … {_signed(ci[1], percent)}"


def _reading(ci: list[float] | None) -> str:
    if ci is None:
        return "-"
    return "B higher" if ci[0] > 0 else "B lower" if ci[1] < 0 else "no clear difference"


def _ratio_of_sums(numerators: Sequence[float], denominators: Sequence[float]) -> float | None:
    total = sum(denominators)
    return sum(numerators) / total if total else None


def _signed(value: float | None, percent: bool) -> str:
    if value is None:
        return "-"
    return f"{100 * value:+.1f} pp" if percent else f"{value:+.2f}"


def fixed_identities(row: ResultRow) -> Counter[str]:
    """Original alerts a passing revision removed (a failing revision fixes nothing, as in the metrics)."""
    if not row.pass_at_1:
        return Counter()
    before = Counter(m.message_identity for m in row.original_messages)
    return before - Counter(m.message_identity for m in row.revised_messages)


def fixes_by_check(a: Mapping[str, ResultRow], b: Mapping[str, ResultRow], shared: Sequence[str]) -> list[list[str]]:
    """Per check: alerts fixed by A only, by B only, by both, over the shared rows."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    check_of = {m.message_identity: m.check_name for row_id in shared for m in a[row_id].original_messages}
    check_of |= {m.message_identity: m.check_name for row_id in shared for m in b[row_id].original_messages}
    for row_id in shared:
        fixed_a, fixed_b = fixed_identities(a[row_id]), fixed_identities(b[row_id])
        for column, fixed in enumerate((fixed_a - fixed_b, fixed_b - fixed_a, fixed_a & fixed_b)):
            for identity, count in fixed.items():
                counts[check_of[identity]][column] += count
    ordered = sorted(counts.items(), key=lambda item: (-abs(item[1][0] - item[1][1]), item[0]))
    return [[check, str(only_a), str(only_b), str(both)] for check, (only_a, only_b, both) in ordered
            if only_a or only_b]


class SharedSamples(NamedTuple):
    """Two runs restricted to the rows both scored: the unit the paired bootstrap resamples."""

    rows: list[str]  # the row ids scored in both
    a: list[SampleParts]  # per shared sample, in the same order for both
    b: list[SampleParts]


def shared_samples(rows_a: Mapping[str, ResultRow], rows_b: Mapping[str, ResultRow]) -> SharedSamples:
    """``scored_rows`` of two runs → their shared rows and both runs' parts per shared sample."""
    shared = [row_id for row_id in rows_a if row_id in rows_b]
    parts_a, parts_b = sample_parts(rows_a[r] for r in shared), sample_parts(rows_b[r] for r in shared)
    return SharedSamples(shared, list(parts_a.values()), [parts_b[s] for s in parts_a])


def compare_section(a: CompareRun, b: CompareRun, target: str) -> str:
    rows_a, rows_b = scored_rows(a.rows), scored_rows(b.rows)
    paired = shared_samples(rows_a, rows_b)
    shared = paired.rows
    html_parts = [
        f"<h2>A = {_e(a.name)}, B = {_e(b.name)}</h2>",
        f"<p>Compared on the {len(paired.a)} samples ({len(shared)} rows) scored in both runs (rows scored in one "
        f"run only: A {len(rows_a) - len(shared)}, B {len(rows_b) - len(shared)}). Intervals: paired bootstrap "
        f"over those samples ({RESAMPLES} resamples); \"no clear difference\" when the interval holds 0.</p>",
        to_html(Table(title="Metric deltas (B − A)", headers=["metric", "A", "B", "B − A", "95% CI", "reading"],
                      rows=metric_deltas(paired.a, paired.b))),
    ]
    links = (_site_link(target, a.site), _site_link(target, b.site))
    for title, passed_in, failed_in in (("Passed in A, failed in B", rows_a, rows_b),
                                        ("Failed in A, passed in B", rows_b, rows_a)):
        flipped = [r for r in shared if passed_in[r].pass_at_1 and not failed_in[r].pass_at_1]
        html_parts.append(flips_html(title, flipped, rows_a, rows_b, links))
    checks = fixes_by_check(rows_a, rows_b, shared)
    html_parts.append(to_html(Table(title="Alerts fixed by one run but not the other, by check (passing revisions)",
                                    headers=["check", "fixed by A only", "fixed by B only", "fixed by both"],
                                    rows=checks or [["(none)", "0", "0", "0"]])))
    return "<section class='comparison'>" + "".join(html_parts) + "</section>"


def flips_html(title: str, flipped: Sequence[str], rows_a: Mapping[str, ResultRow],
               rows_b: Mapping[str, ResultRow], links: tuple[str | None, str | None]) -> str:
    def cell(row: ResultRow, site: str | None) -> str:
        outcome = _e(outcome_of(row))
        if site is None:
            return f"<td>{outcome}</td>"
        return f"<td><a href='{_e(site)}/sample.html#{quote(row.row_id, safe='')}'>{outcome}</a></td>"

    body = "".join(
        f"<tr class='flip' data-row-id='{_e(r)}'><td>{_e(r)}</td><td>{_e(rows_a[r].language or '-')}</td>"
        f"<td>{_e(rows_a[r].problem_id or '-')}</td>{cell(rows_a[r], links[0])}{cell(rows_b[r], links[1])}</tr>"
        for r in flipped
    ) or "<tr><td colspan='5'>none</td></tr>"
    return (f"<h3>{_e(title)} ({len(flipped)})</h3><table class='flips'><thead><tr><th>row</th><th>language</th>"
            f"<th>problem</th><th>A</th><th>B</th></tr></thead><tbody>{body}</tbody></table>")


def _site_link(target: str, site: str | None) -> str | None:
    """``site`` relative to ``target`` when both are local or on the same host (links then survive
    a copy or ``aws s3 sync`` of the whole tree), else ``site`` itself."""
    if site is None:
        return None
    site = site.rstrip("/")
    here, there = urlsplit(target), urlsplit(site)
    if here.scheme in ("", "file") and there.scheme in ("", "file"):
        return os.path.relpath(os.path.abspath(there.path), os.path.abspath(here.path)).replace(os.sep, "/")
    if (here.scheme, here.netloc) == (there.scheme, there.netloc):
        return posixpath.relpath(there.path, here.path or "/")
    return site
