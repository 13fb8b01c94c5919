"""``linteval-ray suite``: the command line of a test-suite quality run (docs/suite.md)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from linteval_ray.config import ConfigError, describe_errors
from linteval_ray.config.run import apply_override
from linteval_ray.suite.config import SuiteConfig

DESCRIPTION = """\
Judge every solution of the pools on its problem's tests and report the tests' quality: TPR (correct
solutions accepted) and TNR (incorrect ones rejected) per problem, macro over problems (the
CodeContests-O paper's), over the problems with both, and pooled, by language, with bootstrap intervals;
a verifier card per problem (OUTPUT/report/index.html). Rerunning with the same --output resumes.

  linteval-ray suite                                     the bundled problems and pools
  linteval-ray suite --tests codecontests-o:test --pool 'hf://datasets/deepmind/code_contests/data/test-*.parquet'
  linteval-ray suite --tests my-split.parquet --pool pool.jsonl --set task.options.judge=compat
"""


def load_suite_config(path: str | None, overrides: list[str]) -> SuiteConfig:
    """A YAML file (or the defaults), then ``a.b.c=value`` overrides in order."""
    data: dict[str, Any] = {}
    if path is not None:
        data = yaml.safe_load(Path(path).read_text()) or {}
        if not isinstance(data, dict):
            raise ConfigError(f"{path}: top level must be a mapping")
    for item in overrides:
        apply_override(data, item)
    try:
        return SuiteConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(describe_errors(exc, path)) from None


def flag_overrides(args: argparse.Namespace) -> list[str]:
    """The flags as overrides: they win over the file, --set wins over them."""
    pairs: list[str] = []
    for name, key in (("tests", "tests"), ("pool", "pools"), ("language", "languages"), ("problem_id", "problem_ids")):
        if getattr(args, name):
            pairs.append(f"{key}={json.dumps(getattr(args, name))}")
    for name, key in (("output", "output"), ("run_name", "run_name"), ("limit", "limit"), ("python2", "suite.python2"),
                      ("judge", "task.options.judge"), ("ray_address", "ray.address")):
        if getattr(args, name) is not None:
            pairs.append(f"{key}={json.dumps(getattr(args, name))}")
    if args.stop_at_first_failure:
        pairs.append("suite.stop_at_first_failure=true")
    overrides: list[str] = args.overrides
    return pairs + overrides


def suite_command(args: argparse.Namespace) -> int:
    from linteval_ray.report.tables import to_text
    from linteval_ray.suite.report import metric_tables
    from linteval_ray.suite.run import run_suite

    outcome = run_suite(load_suite_config(args.config, flag_overrides(args)))
    metrics = outcome.reduction.metrics
    print()
    for table in metric_tables(metrics):
        print(to_text(table), end="\n\n")
    if metrics.invalid_problems:
        print(f"problems that cannot judge: {len(metrics.invalid_problems)} (metrics.json: invalid_problems)")
    print(f"judged now: {outcome.judged_now} solutions (a rerun judges only what no earlier attempt completed)")
    print(f"results: {outcome.output}  (shards/: a row per solution; metrics.json, report.md)")
    print(f"verifier cards: {outcome.reduction.site}")
    return 0


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Add ``suite``; sets ``args.func`` (returns an exit code)."""
    parser = subparsers.add_parser("suite", help="test-suite quality: TPR/TNR of every problem's tests over "
                                   "its correct and incorrect solutions", description=DESCRIPTION,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", "-c", help="YAML suite config (see configs/suite.yaml); flags override it")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override any key, e.g. --set suite.unit_solutions=128 (repeatable)")
    parser.add_argument("--tests", action="append", metavar="PRESET_OR_URL",
                        help="test source: codecontests-o:test, suite:bundled, or a JSONL/Parquet URL of a task's rows "
                        "(repeatable; default suite:bundled)")
    parser.add_argument("--pool", action="append", metavar="URL",
                        help="solution pool: deepmind/code_contests rows or flat rows (problem, language, code, "
                        "label), local, s3://, gs://, hf://, a glob for several files (repeatable; default "
                        "suite:bundled)")
    parser.add_argument("--output", "-o", help="run folder (default ./runs/<run-name>)")
    parser.add_argument("--run-name", help="default suite-<time>")
    parser.add_argument("--judge", choices=("strict", "compat"),
                        help="CodeContests-O's judging profile (task.options.judge): strict (default) or compat, "
                        "the published harness's")
    parser.add_argument("--stop-at-first-failure", action="store_true",
                        help="stop a solution's tests at its first failure: same verdicts, fewer tests run and "
                        "reported")
    parser.add_argument("--python2", choices=("python2", "python3"),
                        help="run Python 2 solutions as Python 2.7 (default) or on Python 3 (as the published "
                        "harness did)")
    parser.add_argument("--language", action="append", help="only solutions in this language (cpp, py3, py2, java)")
    parser.add_argument("--problem-id", action="append", help="only this problem's solutions (repeatable)")
    parser.add_argument("--limit", type=int, help="at most N solutions of each pool file")
    parser.add_argument("--ray-address", help="Ray cluster address (default: RAY_ADDRESS or a local Ray)")
    parser.set_defaults(func=suite_command)
    return parser
