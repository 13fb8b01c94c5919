"""The ``linteval-ray`` command line."""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
from typing import TYPE_CHECKING, get_args

from linteval_ray import __version__
from linteval_ray.config import (
    DEFAULT_RANK_BY,
    MODEL_NAME_PATTERN,
    ConfigError,
    ModelChoice,
    ModelConfig,
    RankBy,
    RunConfig,
    dataset_overrides,
    load_config,
)
from linteval_ray.errors import LintEvalError
from linteval_ray.languages.registry import language_names, languages
from linteval_ray.track.registry import TRACKERS

if TYPE_CHECKING:
    from linteval_ray.reduce.metrics import RunMetrics

DESCRIPTION = """\
linteval-ray scores models on LintEval: a model rewrites a program ({languages})
so its linter alerts go away; the evaluator lints, compiles and runs the
problem's testlib tests on every revision in a sandbox, at cluster scale on Ray.

  linteval-ray run                       evaluate the bundled data set (reference revisions)
  linteval-ray run --config configs/lite.yaml --model /models/my-ft
  linteval-ray generate --model /models/my-ft -o runs/ft   then: run --predictions runs/ft/predictions
  linteval-ray validate --sample-id lr01_cpp_0     debug one sample in process
  linteval-ray run --model base=Qwen/Qwen2.5-Coder-7B-Instruct --checkpoints 's3://b/run/checkpoint-*'
                                         a fine-tuning run: every checkpoint, one leaderboard
  linteval-ray compare runs/a runs/b      side-by-side metrics, compare.html with paired intervals
  linteval-ray report runs/a              rewrite the browsable report (runs/a/report/index.html)
  linteval-ray calibrate --dataset lite    how far our lint settings are from the recorded alerts
  linteval-ray suite --tests codecontests-o:test --pool POOL   TPR/TNR of a test suite over solution pools
"""


RANK_BY_HELP = ("what leaderboards and compare rank by, best first (default pass_x_reduction: Pass@1 x Reduction@P, "
                "which returning every program unchanged cannot win; pass_at_1 ranks doing nothing first)")
RANK_BY_CHOICES = list(get_args(RankBy))


def description() -> str:
    """The top-level help, naming every registered language (plugins too)."""
    names = [spec.display_name for spec in languages()]
    listed = f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else names[0]
    return DESCRIPTION.format(languages=listed)


STRICT_HELP = ("exit 1 when too many responses were cut at max_tokens or held no program "
               "(generation.health thresholds, default 5%%)")


def _add_run_overrides(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", "-c", help="YAML run config (see configs/); flags override it")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override any config key, e.g. --set validation.limits.memory_mb=256 (repeatable)")
    p.add_argument("--dataset", help="preset (bundled, lite, demo, full) or JSONL/Parquet URL")
    p.add_argument("--limit", type=int, help="at most N samples")
    p.add_argument("--language", action="append", choices=language_names(),
                   help="only this language (repeatable)")
    p.add_argument("--sample-id", action="append", help="only this sample (repeatable)")
    p.add_argument("--predictions", action=ModelFlag, default=[], metavar="[NAME=]PATH",
                   help="replay revisions from this JSONL/Parquet (sample_id, raw_response/revised_code) "
                   "or a folder written by `linteval-ray generate`; NAME=PATH (repeatable): one model of a set")


def _add_generation_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--output", "-o", help="run folder: local path, s3://..., gs://... (default ./runs/<run-name>)")
    p.add_argument("--run-name", help="name of the run (default <dataset>-<backend>-<time>)")
    p.add_argument("--model", action=ModelFlag, default=[], metavar="[NAME=]PATH_OR_ID",
                   help="vLLM model: local path, s3:// path or hub id (with --endpoint, or a config whose backend is "
                   "endpoint: the served model name); "
                   "NAME=PATH_OR_ID (repeatable): one model of a set, in OUTPUT/models/NAME")
    p.add_argument("--endpoint", action=ModelFlag, default=[], metavar="[NAME=]URL",
                   help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1; NAME=URL (repeatable): one model "
                   "of a set, its served model name given by --model NAME=SERVED_NAME")
    p.add_argument("--n", type=int, help="generations per sample (pass@k for k <= n)")
    p.add_argument("--ray-address", help="Ray cluster address (default: RAY_ADDRESS or a local Ray)")


class ModelFlag(argparse.Action):
    """``--model``/``--endpoint``/``--predictions``: a plain value sets the run's generation section (as
    ever; once each), ``NAME=VALUE`` adds to the set's models, in the order given across the three flags."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        value = str(values)
        name, sep, rest = value.partition("=")
        if sep and rest and re.match(MODEL_NAME_PATTERN, name):
            named: list[tuple[str, str, str]] = getattr(namespace, "named_models", None) or []
            namespace.named_models = [*named, (self.dest, name, rest)]
            return
        plain: list[str] = getattr(namespace, self.dest) or []
        if plain:
            parser.error(f"{option_string} given twice: to evaluate several models, name each "
                         f"({option_string} NAME={value})")
        setattr(namespace, self.dest, [value])


def _plain(args: argparse.Namespace, name: str) -> str | None:
    values: list[str] = getattr(args, name, None) or []
    return values[0] if values else None


def _flag_overrides(args: argparse.Namespace) -> list[str]:
    """CLI flags as config overrides (they win over the file, --set wins over them)."""
    pairs = dataset_overrides(args.dataset, args.limit, args.language, args.sample_id)
    for name, key in [("output", "output"), ("run_name", "run_name"), ("ray_address", "ray.address"),
                      ("n", "generation.n"), ("checkpoints", "checkpoints.glob"), ("follow", "checkpoints.follow_s"),
                      ("baseline", "baseline"), ("rank_by", "rank_by"), ("log_to", "tracking.log_to"),
                      ("mlflow_tracking_uri", "tracking.mlflow.tracking_uri"),
                      ("mlflow_experiment", "tracking.mlflow.experiment"), ("wandb_project", "tracking.wandb.project"),
                      ("wandb_entity", "tracking.wandb.entity")]:
        value = getattr(args, name, None)
        if value is not None:
            pairs.append(f"{key}={json.dumps(value)}")
    overrides: list[str] = args.overrides
    return pairs + overrides


def plain_model(args: argparse.Namespace) -> ModelChoice:
    """The run's model as the plain ``--model``/``--endpoint``/``--predictions`` flags name it (a set's
    models are named the same way: ``ModelChoice``)."""
    return ModelChoice(model=_plain(args, "model"), endpoint=_plain(args, "endpoint"),
                       predictions=_plain(args, "predictions"))


def named_models(args: argparse.Namespace) -> list[ModelConfig]:
    """The set's models the flags name (``--model NAME=...``, ``--endpoint NAME=URL``, ``--predictions
    NAME=PATH``), in the order given; an endpoint's served model name is ``--model`` of the same NAME."""
    entries: dict[str, dict[str, str]] = {}
    for flag, name, value in getattr(args, "named_models", None) or []:
        entry = entries.setdefault(name, {"name": name})
        if flag in entry:
            raise ConfigError(f"--{flag} {name}=... given twice: give each model of the set its own name")
        entry[flag] = value
    return [ModelConfig.model_validate(entry) for entry in entries.values()]


def _config(args: argparse.Namespace) -> RunConfig:
    config = load_config(args.config, _flag_overrides(args), plain_model(args))
    flagged = named_models(args)
    if flagged:
        if args.func is not cmd_run:
            raise ConfigError("NAME=VALUE models make a set, which only `linteval-ray run` evaluates; "
                              "run this command once per model")
        config.models = [*config.models, *flagged]
    return config


def cmd_run(args: argparse.Namespace) -> int:
    from linteval_ray.pipeline.run import run
    from linteval_ray.report.tables import to_text
    from linteval_ray.tasks.registry import task

    config = _config(args)
    if config.is_set:
        return _run_set(args, config)
    if config.tracking.log_to:
        raise ConfigError("--log-to logs the models of a set: name the model (--model NAME=PATH, --predictions "
                          "NAME=PATH) to evaluate it as a set of one")
    outcome = run(config)
    metrics = outcome.reduction.metrics
    print()
    for table in task(metrics.task).report_tables(metrics):
        print(to_text(table), end="\n\n")
    for warning in metrics.warnings():
        print(f"WARNING: {warning}")
    print(f"results: {outcome.output}  (metrics.json, results.parquet, report.md, report.html)")
    print(f"browse every sample: {outcome.output}/report/index.html")
    if outcome.resumed_rows:
        print(f"resumed: {outcome.resumed_rows} rows were already done, {outcome.new_rows} evaluated now")
    for warning in outcome.generation_warnings:
        print(f"WARNING: {warning}")
    return _strict_exit(args, metrics, outcome.generation_warnings)


def _run_set(args: argparse.Namespace, config: RunConfig) -> int:
    from linteval_ray.report.tables import to_text
    from linteval_ray.sets.leaderboard import language_table, leaderboard_table
    from linteval_ray.sets.run import run_set

    outcome = run_set(config)
    print()
    if outcome.leaderboard is not None:
        print(to_text(leaderboard_table(outcome.leaderboard)), end="\n\n")
        print(to_text(language_table(outcome.leaderboard)), end="\n\n")
    if outcome.finished_before:
        print(f"finished by an earlier attempt (skipped): {', '.join(outcome.finished_before)}")
    print(f"evaluated now: {', '.join(outcome.evaluated) or 'nothing'}")
    print(f"leaderboard: {outcome.output}/leaderboard.html  (leaderboard.json, leaderboard.md)")
    print(f"each model: {outcome.output}/models/<name>/  (report/index.html, results.parquet, metrics.json)")
    for warning in outcome.warnings:
        print(f"WARNING: {warning}")
    if args.strict and outcome.unhealthy:
        print(f"linteval-ray: --strict: the generations of {', '.join(outcome.unhealthy)} failed their health checks "
              "(thresholds: generation.health)", file=sys.stderr)
        return 1
    return 0


def _strict_exit(args: argparse.Namespace, metrics: RunMetrics, probe_warnings: list[str] | None = None) -> int:
    """1 under ``--strict`` when the generations are too unhealthy to trust the score, else 0."""
    problems = metrics.generation.problems() + (probe_warnings or [])
    if args.strict and problems:
        print(f"linteval-ray: --strict: {len(problems)} generation health check(s) failed (thresholds: "
              "generation.health)", file=sys.stderr)
        return 1
    return 0


def cmd_generate(args: argparse.Namespace) -> int:
    from linteval_ray.pipeline.predictions import generate

    outcome = generate(_config(args))
    print(f"predictions: {outcome.folder}  ({outcome.new_rows} rows generated now, {outcome.errors} with a "
          f"generation_error, {outcome.resumed_rows} already there)")
    print(f"score them: linteval-ray run --predictions {outcome.folder} (same --dataset/--limit/--n)")
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    from linteval_ray.pipeline.local import describe, validate_in_process

    rows = validate_in_process(_config(args))
    if args.json:
        for row in rows:
            print(row.model_dump_json())
        return 0
    for row in rows:
        print(describe(row), end="\n\n")
    return 0


def cmd_reduce(args: argparse.Namespace) -> int:
    """``reduce`` and ``report``: metrics.json and results.parquet from the shards, then the report and site."""
    from linteval_ray.reduce.reduce import reduce_run
    from linteval_ray.report.publish import publish
    from linteval_ray.report.tables import to_text
    from linteval_ray.store.folder import RunFolder
    from linteval_ray.tasks.registry import task

    config = load_config(args.config)
    folder = RunFolder.open(args.output, config.storage)
    reduction = reduce_run(folder, config.generation.health)
    index = publish(folder, reduction.results, reduction.metrics)
    for table in task(reduction.metrics.task).report_tables(reduction.metrics):
        print(to_text(table), end="\n\n")
    for warning in reduction.metrics.warnings():
        print(f"WARNING: {warning}")
    print(f"report: {index}")
    return _strict_exit(args, reduction.metrics)


def cmd_compare(args: argparse.Namespace) -> int:
    from linteval_ray.report.compare import CompareRun, compare_table, write_compare_site
    from linteval_ray.report.tables import to_markdown, to_text
    from linteval_ray.sets.folder import open_set, run_folders
    from linteval_ray.store.fs import ObjectStore
    from linteval_ray.store.shards import read_rows

    store = ObjectStore(storage=load_config(args.config).storage)
    folders = [folder for output in args.outputs for folder in run_folders(output, store)]
    table = compare_table(folders, args.group, args.rank_by)
    print(to_markdown(table) if args.markdown else to_text(table))
    if len(folders) > 1:
        runs = [CompareRun(f.name, read_rows(f)[0], f.site) for f in folders]
        first_set = open_set(args.outputs[0], store)  # a set's compare.html goes beside its leaderboard
        default_site = first_set.url if first_set is not None else folders[0].site
        print(f"compare: {write_compare_site(runs, args.site_dir or default_site, store)}")
    return 0


def _add_set_flags(p: argparse.ArgumentParser) -> None:
    group = p.add_argument_group(
        "a set of models (several --model/--endpoint/--predictions NAME=..., or --checkpoints)",
        "One Ray job: the models generate one after another, one warm validation pool judges them all, each "
        "model's results go to OUTPUT/models/NAME/ (an ordinary run folder), OUTPUT/leaderboard.html ranks them "
        "with paired intervals against the baseline. Rerunning the same command skips finished models, resumes "
        "a partial one and adds new ones.")
    group.add_argument("--checkpoints", metavar="GLOB",
                       help="one model per checkpoint folder, e.g. 's3://bucket/run/checkpoint-*' (local, s3://, "
                       "gs://): named by the folder, its step parsed from the name; LoRA adapters run on "
                       "generation.vllm.model (or --model PATH), else on the base the adapter names")
    group.add_argument("--follow", type=float, metavar="SECONDS",
                       help="keep polling --checkpoints every SECONDS and evaluate each new checkpoint once its "
                       "files stop changing, until interrupted")
    group.add_argument("--baseline", metavar="NAME", help="the model deltas are against (default: the first)")
    group.add_argument("--rank-by", choices=RANK_BY_CHOICES, help=RANK_BY_HELP)
    group.add_argument("--log-to", action="append", choices=sorted(TRACKERS), metavar="TRACKER",
                       help="log each model to an experiment tracker: mlflow, wandb (repeatable; optional extras: "
                       "pip install 'linteval-ray[mlflow]')")
    group.add_argument("--mlflow-tracking-uri", help="default: MLFLOW_TRACKING_URI")
    group.add_argument("--mlflow-experiment", help="default: MLFLOW_EXPERIMENT_NAME, else the run name")
    group.add_argument("--wandb-project", help="default: WANDB_PROJECT, else linteval")
    group.add_argument("--wandb-entity", help="default: WANDB_ENTITY, else your default entity")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="linteval-ray", description=description(),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"linteval-ray {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    parser.add_argument("--debug", action="store_true", help="show the traceback of a user error too")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    run = sub.add_parser("run", help="evaluate a split end to end on Ray (default: the bundled data)",
                         description="Load → prompt → generate → validate → store → reduce → report. "
                         "Rerunning with the same --output resumes: rows already written are skipped.")
    _add_run_overrides(run)
    _add_generation_flags(run)
    run.add_argument("--strict", action="store_true", help=STRICT_HELP)
    _add_set_flags(run)
    run.set_defaults(func=cmd_run)

    gen = sub.add_parser("generate", help="generation only: write OUTPUT/predictions/ to score later with "
                         "`run --predictions`", description="Load → prompt → generate → OUTPUT/predictions/*.parquet "
                         "(one row per sample and draw, with the generation facts). Rerunning with the same --output "
                         "generates only the rows without an answer yet.")
    _add_run_overrides(gen)
    _add_generation_flags(gen)
    gen.set_defaults(func=cmd_generate)

    val = sub.add_parser("validate", help="evaluate samples in this process, without Ray (debugging)")
    _add_run_overrides(val)
    val.add_argument("--json", action="store_true", help="print result rows as JSON lines")
    val.set_defaults(func=cmd_validate)

    for name, text in [("reduce", "recompute metrics.json, results.parquet and the report from shards"),
                       ("report", "(re)write OUTPUT/report/: the browsable site of every sample, and report.md/html")]:
        red = sub.add_parser(name, help=text, description=text + ". Open OUTPUT/report/index.html in a browser "
                             "(it works from a local folder or any static host; no server needed).")
        red.add_argument("output", help="run folder (local, s3://, gs://)")
        red.add_argument("--config", "-c", help="config holding storage credentials (and generation.health)")
        red.add_argument("--strict", action="store_true", help=STRICT_HELP)
        red.set_defaults(func=cmd_reduce)

    cmp_ = sub.add_parser("compare", help="side-by-side metrics of several runs")
    cmp_.add_argument("outputs", nargs="+", help="run folders, or a set's folder (all its models)")
    cmp_.add_argument("--group", default="overall", help=f"overall, or a language: {', '.join(language_names())}")
    cmp_.add_argument("--rank-by", choices=RANK_BY_CHOICES, default=DEFAULT_RANK_BY, help=RANK_BY_HELP)
    cmp_.add_argument("--markdown", action="store_true", help="print a Markdown table")
    cmp_.add_argument("--site-dir", help="folder for compare.html (default: the first run's report/ folder): "
                      "metric deltas with paired bootstrap intervals, flipped samples, alerts fixed by one run only")
    cmp_.add_argument("--config", "-c", help="config holding storage credentials")
    cmp_.set_defaults(func=cmd_compare)

    from linteval_ray.calibrate.command import add_parser as add_calibrate_parser
    from linteval_ray.plan import add_parser as add_plan_parser
    from linteval_ray.suite.command import add_parser as add_suite_parser
    from linteval_ray.toolchain.check import add_parser as add_toolchain_parser

    add_calibrate_parser(sub)
    add_toolchain_parser(sub)
    add_plan_parser(sub)
    add_suite_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s", datefmt="%H:%M:%S")
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        code: int = args.func(args)
        return code
    except LintEvalError as exc:
        if args.debug:
            raise
        kind = "config error" if isinstance(exc, ConfigError) else "error"
        print(f"linteval-ray: {kind}: {exc}", file=sys.stderr)
        return 2
