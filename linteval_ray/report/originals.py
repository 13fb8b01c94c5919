"""The dataset records a run's site shows (its originals), read back from the run's split.

The split is the only place the original program (and the prompt's inputs) live. The run
validated every record when it read them, and a record that failed is an ``invalid_input`` row:
the report re-reads the split as raw JSON and keeps, of the first record of each sample id the
rows name, only the fields the site shows (``Original``), building no model. A JSONL line is
decoded by msgspec into those fields alone (the tests, generators and responses, most of a
line, are skipped unbuilt: ~5x faster than the stdlib parser); a line it refuses (not a plain
record: a lone surrogate, NaN, a missing field) is decoded by the stdlib as the run decoded it,
so both give the same originals. The site routes them to temporary files by its ranges of
chunks as the split streams by (``spill_originals``), so the originals of a 100k-row run never
sit in memory together.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Generator, Iterable, Iterator
from contextlib import closing
from typing import Any, NamedTuple

import msgspec
import pyarrow as pa
from pydantic import TypeAdapter

from linteval_ray.load.presets import resolve_source
from linteval_ray.load.readers import detect_format, iter_jsonl_lines, iter_rows, parse_json_object
from linteval_ray.schema import LintEvalRecord, LintMessage, Status
from linteval_ray.schema.record import Language
from linteval_ray.schema.table import ResultTable
from linteval_ray.store.folder import RunFolder
from linteval_ray.store.manifest import read_manifest
from linteval_ray.store.spill import Buckets

log = logging.getLogger(__name__)

_MESSAGES = TypeAdapter(list[LintMessage])
_BATCH_ROWS = 64  # originals held per bucket before they are written (memory: buckets x this)


class OriginalsUnavailable(Exception):
    """The split could not be read to the end: the site shows no originals (a warning says why)."""


class Original(NamedTuple):
    """What the site shows of one dataset record: its program, title and prompt inputs."""

    sample_id: str
    problem_id: str
    title: str | None
    language: Language
    code: str
    alerts_json: str | None  # the record's linter_messages as JSON (models only when a prompt is
    # shown); None when the run shows no prompt (JSON text costs as much as the rest of a record)

    @classmethod
    def of_record(cls, record: LintEvalRecord) -> Original:
        return cls(record.sample_id, record.problem_id, record.title, record.language, record.code,
                   _MESSAGES.dump_json(record.linter_messages).decode())

    @classmethod
    def of_raw(cls, raw: dict[str, Any], with_alerts: bool) -> Original:
        """From a record as its JSON line holds it (the run validated it: the values are the model's)."""
        return cls(raw["sample_id"], raw["problem_id"], raw.get("title"), raw["language"], raw["code"],
                   json.dumps(raw.get("linter_messages", [])) if with_alerts else None)

    @classmethod
    def of_shown(cls, shown: ShownFields, with_alerts: bool) -> Original:
        """From a record's fields as msgspec decoded them; the alerts as the line's JSON text (it
        validates to the models the stdlib's parse and ``json.dumps`` of them would)."""
        return cls(shown.sample_id, shown.problem_id, shown.title, shown.language, shown.code,
                   bytes(shown.linter_messages).decode() if with_alerts else None)

    @property
    def linter_messages(self) -> list[LintMessage]:
        if self.alerts_json is None:
            raise ValueError(f"{self.sample_id}: the alerts of this original were not kept")
        return _MESSAGES.validate_json(self.alerts_json)


ORIGINAL_SCHEMA = pa.schema([(name, pa.string()) for name in Original._fields])


class ShownFields(msgspec.Struct):
    """The fields of a record ``Original`` keeps, as msgspec decodes them from a JSONL line (any
    other field is skipped, not built); a line without them, or with another type, is refused."""

    sample_id: str
    problem_id: str
    language: Language
    code: str
    title: str | None = None
    linter_messages: msgspec.Raw = msgspec.Raw(b"[]")


_SHOWN = msgspec.json.Decoder(ShownFields)


def originals_of_run(folder: RunFolder, results: ResultTable, with_alerts: bool) -> Iterator[Original]:
    """The originals of a finished run's samples from its dataset (as the manifest names it), in
    file order, the first record of each sample id (their alerts too if ``with_alerts``: a prompt
    is shown); raises ``OriginalsUnavailable`` (after a warning) when the dataset cannot be read
    any more, and yields none without a manifest."""
    manifest = read_manifest(folder)
    if manifest is None:
        return
    # The sample ids whose record the run validated: an invalid row's sample id (or the record
    # that came after one with the same id) is an invalid_input row, and shows no original.
    wanted = {sample_id for sample_id, status in zip(results.column("sample_id"), results.column("status"),
                                                     strict=True) if status != Status.INVALID_INPUT}
    try:
        url = resolve_source(manifest.dataset_url)
        records = _jsonl_records(url, folder) if detect_format(url) == "jsonl" else _rows(url, folder)
        with closing(records):
            for record in records:
                sample_id = record.sample_id if isinstance(record, ShownFields) else record.get("sample_id")
                if isinstance(sample_id, str) and sample_id in wanted:
                    wanted.discard(sample_id)
                    yield (Original.of_shown(record, with_alerts) if isinstance(record, ShownFields)
                           else Original.of_raw(record, with_alerts))
    except Exception as exc:  # the report must still be written without the originals
        log.warning("originals not shown in the report: cannot read %s (%s)", manifest.dataset_url, exc)
        raise OriginalsUnavailable(str(exc)) from exc


def _jsonl_records(url: str, folder: RunFolder) -> Generator[ShownFields | dict[str, Any], None, None]:
    """Each parsable record of a JSONL split: its shown fields, or (a line msgspec refuses) the
    whole record as the stdlib parses it."""
    with closing(iter_jsonl_lines(url, folder.store.storage)) as lines:
        for row_number, line in lines:
            try:
                yield _SHOWN.decode(line)
            except msgspec.MsgspecError:
                raw = parse_json_object(row_number, line)
                if isinstance(raw, dict):  # else an unparsable line: an invalid_input row
                    yield raw


def _rows(url: str, folder: RunFolder) -> Generator[dict[str, Any], None, None]:
    """Each parsable record of a split (Parquet) as a dict."""
    with closing(iter_rows(url, folder.store.storage)) as rows:
        for _, raw in rows:
            if isinstance(raw, dict):  # else an unparsable row: an invalid_input row
                yield raw


def spill_originals(originals: Iterable[Original], bucket_of: Callable[[str], int], buckets: Buckets) -> bool:
    """Each original to the bucket of its sample id, in ``originals``' order; False (and the
    buckets incomplete) when they became unavailable on the way."""
    pending: dict[int, list[Original]] = {}
    try:
        for original in originals:
            bucket = bucket_of(original.sample_id)
            held = pending.setdefault(bucket, [])
            held.append(original)
            if len(held) >= _BATCH_ROWS:
                buckets.write(bucket, _table(held))
                held.clear()
    except OriginalsUnavailable:
        return False
    for bucket, held in pending.items():
        if held:
            buckets.write(bucket, _table(held))
    return True


def read_originals(buckets: Buckets, bucket: int) -> dict[str, Original]:
    """The originals of one bucket by sample id."""
    columns = buckets.read(bucket).to_pydict()
    return {original.sample_id: original for original in
            map(Original._make, zip(*(columns[name] for name in Original._fields), strict=True))}


def _table(originals: list[Original]) -> pa.Table:
    return pa.Table.from_arrays([pa.array(column, pa.string()) for column in zip(*originals, strict=True)],
                                schema=ORIGINAL_SCHEMA)
