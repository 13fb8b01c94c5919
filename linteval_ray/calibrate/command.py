"""The ``calibrate`` subcommand: load a split, re-lint its originals (here or on Ray), compare, derive."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from linteval_ray.calibrate.agreement import CalibrationReport, CalibrationSample, compare
from linteval_ray.calibrate.derive import derive_profile
from linteval_ray.config import RunConfig, dataset_overrides, load_config
from linteval_ray.languages.registry import languages
from linteval_ray.load.loader import load_split
from linteval_ray.report.tables import Table, pct, to_text
from linteval_ray.schema.record import LintEvalRecord, LintMessage
from linteval_ray.store.folder import CALIBRATION
from linteval_ray.store.fs import ObjectStore
from linteval_ray.validate.lint import LintError
from linteval_ray.validate.lint.profiles import load_profile

if TYPE_CHECKING:
    import pyarrow as pa

log = logging.getLogger(__name__)

BATCH = 32
DESCRIPTION = """\
Re-lint every original of a split with a lint profile and compare the result with the alerts
the dataset recorded for it (its `linter_messages`), as multisets of check::message. Prints,
per language, the samples in exact agreement, recall (recorded alerts we find), precision (our
alerts the record has) and the checks only one side reports; writes calibration.json.

  linteval-ray calibrate --dataset lite                      the default profile on LintEval lite
  linteval-ray calibrate --dataset full --ray-address auto   on a Ray cluster
  linteval-ray calibrate --dataset lite --derive ./my-profile
        also write a profile enabling exactly the recorded checks, and report its agreement;
        use it with `linteval-ray run --set validation.lint_profile=./my-profile`

Re-linted originals go into the content cache, so a run on the same split reuses them.
"""


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("calibrate", help="compare our re-lint of a split's originals with its recorded alerts",
                       description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dataset", help="preset (bundled, lite, demo, full) or JSONL/Parquet URL (default: bundled)")
    p.add_argument("--profile", help="lint profile: linteval (default), broad, or a profile folder")
    p.add_argument("--derive", metavar="OUT", help="write a profile of exactly the recorded checks into OUT")
    p.add_argument("--output", "-o", default=CALIBRATION, help="report file (local or object store URL)")
    p.add_argument("--limit", type=int, help="at most N samples")
    p.add_argument("--language", action="append", choices=[spec.name for spec in languages()],
                   help="only this language")
    p.add_argument("--config", "-c", help="YAML run config (storage credentials, sandbox, dataset filters)")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override any config key (repeatable)")
    p.add_argument("--ray-address", help="lint on this Ray cluster ('auto' to join the local one); "
                   "default: in this process unless RAY_ADDRESS is set")
    p.set_defaults(func=cmd_calibrate)


def _config(args: argparse.Namespace) -> RunConfig:
    pairs = dataset_overrides(args.dataset, args.limit, args.language)
    if args.profile:
        pairs.append(f"validation.lint_profile={json.dumps(args.profile)}")
    if args.ray_address:
        pairs.append(f"ray.address={json.dumps(args.ray_address)}")
    return load_config(args.config, pairs + args.overrides)


def cmd_calibrate(args: argparse.Namespace) -> int:
    from linteval_ray.toolchain import Toolchain

    config = _config(args)
    profile = load_profile(config.validation.lint_profile)
    loaded = load_split(config.dataset.source, config.dataset, config.storage)
    for error in loaded.errors:
        log.warning("input row skipped: %s", error)
    records = sorted(loaded.records, key=lambda r: (r.language, r.problem_id, r.sample_id))
    samples = relint(records, config)
    report = compare(samples, loaded.source, profile.summary())
    print(to_text(agreement_table(report)), end="\n\n")
    print(to_text(checks_table(report)), end="\n\n")
    body: dict[str, Any] = {"calibration": report.model_dump(mode="json"), "invalid_rows": len(loaded.errors)}
    if args.derive:
        derived = derive_profile(samples, Path(args.derive), profile, Toolchain.discover().tool_paths(), loaded.source)
        config.validation.lint_profile = str(derived.path)
        derived_report = compare(relint(records, config), loaded.source, derived.summary())
        print(f"derived profile written to {derived.path}; its agreement:")
        print(to_text(agreement_table(derived_report)), end="\n\n")
        body["derived"] = derived_report.model_dump(mode="json")
    ObjectStore(storage=config.storage).write_atomic(args.output, json.dumps(body, indent=2).encode())
    print(f"calibration written to {args.output}")
    return 0


def relint(records: list[LintEvalRecord], config: RunConfig) -> list[CalibrationSample]:
    """Every record's original re-linted with ``config.validation.lint_profile``."""
    if config.ray.address or os.environ.get("RAY_ADDRESS"):
        return list(_relint_on_ray(records, config))
    from linteval_ray.validate.engine import Validator

    validator = Validator(config.validation, ObjectStore(storage=config.storage))
    samples: list[CalibrationSample] = []
    started = time.monotonic()
    try:
        for start in range(0, len(records), BATCH):
            batch = records[start:start + BATCH]
            samples += [_sample(r, o) for r, o in zip(batch, validator.lint_originals(batch), strict=True)]
            _progress(len(samples), len(records), started)
    finally:
        validator.close()
    return samples


def _sample(record: LintEvalRecord, outcome: list[LintMessage] | LintError) -> CalibrationSample:
    failed = isinstance(outcome, LintError)
    return CalibrationSample(sample_id=record.sample_id, language=record.language, recorded=record.linter_messages,
                             relinted=None if failed else outcome, lint_error=str(outcome) if failed else None)


def _progress(done: int, total: int, started: float) -> None:
    rate = done / max(1e-9, time.monotonic() - started)
    eta = (total - done) / rate if rate else 0.0
    print(f"\rcalibrate: {done}/{total} originals linted ({rate:.1f}/s, ETA {eta:.0f} s)",
          end="\n" if done == total else "", file=sys.stderr, flush=True)


class RelintBatch:
    """Ray Data actor: re-lints a batch of originals with a warm ``Validator``."""

    def __init__(self, validation: Any, storage: Any) -> None:
        from linteval_ray.validate.engine import Validator

        self.validator = Validator(validation, ObjectStore(storage=storage))

    def __call__(self, batch: Any) -> dict[str, list[str]]:
        records = [LintEvalRecord.model_validate_json(text) for text in batch.column("record_json").to_pylist()]
        samples = [_sample(r, o) for r, o in zip(records, self.validator.lint_originals(records), strict=True)]
        return {"sample_json": [s.model_dump_json() for s in samples]}

    def __del__(self) -> None:
        self.validator.close()


def _relint_on_ray(records: list[LintEvalRecord], config: RunConfig) -> Iterator[CalibrationSample]:
    import ray
    import ray.data
    from ray.data import ActorPoolStrategy

    from linteval_ray.pipeline.progress import without_ray_progress  # our progress line is the one report

    if not ray.is_initialized():
        ray.init(address=config.ray.address, log_to_driver=True)
    pool = config.validation.pool
    cpus = ray.cluster_resources().get("CPU", 1.0)  # type: ignore[no-untyped-call]  # ray leaves it untyped
    most = pool.max_actors or max(1, int(cpus // pool.num_cpus))
    ds: ray.data.Dataset = ray.data.from_items([{"record_json": r.model_dump_json()} for r in records],
                             override_num_blocks=max(1, min(len(records) // BATCH, 200)))
    ds = ds.map_batches(RelintBatch, fn_constructor_kwargs={"validation": config.validation, "storage": config.storage},
                        compute=ActorPoolStrategy(min_size=1, max_size=most), batch_size=BATCH,
                        batch_format="pyarrow", num_cpus=pool.num_cpus)
    started, done = time.monotonic(), 0
    for batch in without_ray_progress(ds).iter_batches(batch_format="pyarrow", batch_size=None):
        table = cast("pa.Table", batch)  # batch_format="pyarrow"
        for text in table.column("sample_json").to_pylist():
            done += 1
            yield CalibrationSample.model_validate_json(text)
        _progress(done, len(records), started)


def agreement_table(report: CalibrationReport) -> Table:
    groups = [*report.by_language.values(), report.overall]
    return Table(
        title=f"Lint agreement of profile {report.profile['name']} on {report.dataset} "
              "(recorded vs re-linted originals)",
        headers=["language", "tool", "samples", "exact", "recall", "precision", "recorded", "re-linted", "matched",
                 "lint errors"],
        rows=[[g.language, g.tool, str(g.samples), pct(g.exact_rate), pct(g.recall), pct(g.precision),
               str(g.recorded), str(g.relinted), str(g.matched), str(g.lint_errors)] for g in groups],
    )


def checks_table(report: CalibrationReport) -> Table:
    rows = []
    for group in report.by_language.values():
        rows += [[group.language, "only ours", check, str(n)] for check, n in group.only_ours.items()]
        rows += [[group.language, "only recorded", check, str(n)] for check, n in group.only_recorded.items()]
    return Table(title="Checks reported by one side only (top 10 each)",
                 headers=["language", "side", "check", "alerts"], rows=rows)
