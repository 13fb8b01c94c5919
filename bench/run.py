"""The benchmark: naive harness vs the pipeline cold vs the pipeline warm, in one run.

    .venv/bin/python bench/run.py [--samples N] [--json out.json] [--set validation.pool.batch_size=8]

(1) naive: ``bench/naive.py``, sequential, fresh processes, no cache, no PCH, in this process;
(2) cold: ``linteval_ray.pipeline.run.run`` on a fresh ``LINTEVAL_CACHE_DIR``;
(3) warm: the same cache, every reference revision perturbed by an appended comment line
    (new revision work, cached model-independent work: a second model's run).
``--synthetic N``: warm only, on N rows cycled from the bundled ones with distinct sample ids
(``bench/scale.py``'s split), after an unreported cold run of the bundled rows that fills the
cache: what Ray and the driver add ("other") at a size where per-run costs weigh less.
The pipeline runs in a child process on its own local Ray, inside a cgroup (v1 cpuacct)
of its own, whose ``cpuacct.usage`` is the CPU of the whole run: every Ray process and
everything they start, reaped by whomever (``RUSAGE_CHILDREN`` misses Ray workers; it
is only the fallback where cgroups are not writable). Stage CPU comes from the actors
(``bench/instrument.py``).
Writes ``bench/results/<timestamp>.json`` and ``bench/figures.json`` (read by ``linteval-ray plan``).
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import logging
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: make `bench` importable
    sys.path.insert(0, str(ROOT))

from bench.cpu import SAMPLE_EVERY_S, CgroupSampler, cgroup_cpu_s, join_cgroup, new_cgroup, tree_cpu_s  # noqa: E402
from bench.instrument import STAGE_DIR_ENV  # noqa: E402

log = logging.getLogger("bench")

BENCH_DIR = ROOT / "bench"
FIGURES_FILE = BENCH_DIR / "figures.json"
LANGUAGES = ("cpp", "py3", "java")
STAGES = ("lint", "compile", "tests")
PR_SET_CHILD_SUBREAPER = 36
REAP_DEADLINE_S = 60.0
REST_IDLE_S = 30.0
TARGET_OTHER_SHARE = 0.10  # issue 17: "other" <= 10 % of validation at 500 rows
COMMENT = {"cpp": "// evaluated again by a second model\n", "java": "// evaluated again by a second model\n",
           "py3": "# evaluated again by a second model\n"}


# -- inputs ----------------------------------------------------------------------------------------


def bundled_records(limit: int | None):
    from linteval_ray.schema.bundled import bundled_path
    from linteval_ray.schema.record import LintEvalRecord

    lines = bundled_path().read_text().splitlines()
    records = sorted((LintEvalRecord.model_validate_json(line) for line in lines if line.strip()),
                     key=lambda r: r.sample_id)
    return records[:limit] if limit else records


def synthetic_records(rows: int, path: Path):
    """``rows`` bundled records cycled with distinct sample ids, written to ``path`` as a split."""
    from bench.scale import write_split
    from linteval_ray.schema.record import LintEvalRecord

    write_split(path, rows)
    return [LintEvalRecord.model_validate_json(line) for line in path.read_text().splitlines() if line.strip()]


def perturbed_predictions(records, path: Path) -> None:
    """Every revision with a comment line appended: same verdicts, new revision work."""
    from bench.naive import reference_revision

    with path.open("w") as out:
        for record in records:
            revision = reference_revision(record)
            row: dict[str, Any] = {"sample_id": record.sample_id}
            if revision is None:
                row["raw_response"] = record.raw_response or ""  # extraction fails again
            else:
                row["revised_code"] = revision.rstrip("\n") + "\n" + COMMENT[record.language]
            out.write(json.dumps(row) + "\n")


# -- (1) naive ---------------------------------------------------------------------------------------


def run_naive(records) -> dict[str, Any]:
    from bench.naive import NaiveHarness, reference_revision
    from linteval_ray.toolchain import Toolchain
    from linteval_ray.validate.sandbox import make_sandbox

    toolchain = Toolchain.discover()
    sandbox = make_sandbox("bwrap", toolchain=toolchain)
    harness = NaiveHarness(toolchain, sandbox)
    started, cpu0 = time.monotonic(), tree_cpu_s()
    outcomes = []
    try:
        for record in records:
            outcomes.append(harness.evaluate(record, reference_revision(record)))
            log.info("naive %s: %s", record.sample_id, outcomes[-1].verdict or outcomes[-1].status)
    finally:
        sandbox.close()
    return {"wall_s": time.monotonic() - started, "cpu_s": tree_cpu_s() - cpu0,
            "stages": harness.meter.as_dict(), "actors": [],
            "verdicts": {o.sample_id: o.verdict or o.status for o in outcomes}}


# -- (2)/(3) the pipeline in a child process ----------------------------------------------------------


def bundled_source(records) -> list[str]:
    """The overrides that make ``records`` of the bundled set the run's split."""
    return ["dataset.source=bundled", f"dataset.sample_ids={json.dumps([r.sample_id for r in records])}"]


def run_pipeline(name: str, source: list[str], work: Path, cache_dir: Path, overrides: list[str],
                 script: Path = Path(__file__)) -> dict[str, Any]:
    """``script --child SPEC`` (this file's: one ``run``) in a process and cgroup of its own: its CPU,
    wall, stage CPU per actor and verdicts."""
    stage_dir = work / f"{name}-stages"
    stage_dir.mkdir()
    spec = {"overrides": [f"output={json.dumps(str(work / name))}", *source, *overrides],
            "report": str(work / f"{name}-driver.json")}
    env = {**os.environ, "LINTEVAL_CACHE_DIR": str(cache_dir), STAGE_DIR_ENV: str(stage_dir),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    cgroup = new_cgroup(name)
    before = _reaped_cpu_s()
    started = time.monotonic()
    with CgroupSampler(cgroup) if cgroup else contextlib.nullcontext() as sampler:
        subprocess.run([sys.executable, str(script.resolve()), "--child", json.dumps(spec)], env=env,
                       check=True, preexec_fn=(lambda: join_cgroup(cgroup)) if cgroup else None)
    _reap_orphans()
    reaped = _reaped_cpu_s() - before
    total = cgroup_cpu_s(cgroup) if cgroup else reaped
    driver = json.loads(Path(spec["report"]).read_text())
    actors = [json.loads(p.read_text()) for p in sorted(stage_dir.glob("*.json"))]
    stages: dict[str, dict[str, float]] = {}
    for actor in actors:
        for stage, by_language in actor["stages"].items():
            for language, cpu in by_language.items():
                stages.setdefault(stage, {}).setdefault(language, 0.0)
                stages[stage][language] += cpu
    return {"wall_s": driver["run_wall_s"], "process_wall_s": time.monotonic() - started,
            "cpu_s": total, "cpu_source": "cgroup cpuacct" if cgroup else "RUSAGE_CHILDREN",
            "reaped_cpu_s": reaped, "driver_cpu_s": driver["driver_cpu_s"], "stages": stages,
            "actors": [{"pid": a["pid"], "samples": a["samples"], "peak_rss_mb": a["peak_rss_mb"],
                        "children_peak_rss_mb": a["children_peak_rss_mb"], "tree_cpu_s": a["tree_cpu_s"]}
                       for a in actors],
            "by_process": sampler.by_kind() if sampler else {}, "verdicts": driver["verdicts"]}


def warm_overrides(records, work: Path, name: str) -> list[str]:
    """The warm run's predictions: every revision of ``records`` perturbed."""
    predictions = work / f"{name}-predictions.jsonl"
    perturbed_predictions(records, predictions)
    return [f"generation.replay.predictions={json.dumps(str(predictions))}"]


def run_three(records, work: Path, sets: list[str]) -> tuple[list[Any], dict[str, dict[str, Any]]]:
    """naive, cold and warm on ``records`` of the bundled set."""
    cache = work / "cache"
    source = bundled_source(records)
    return records, {"naive": run_naive(records),
                     "cold": run_pipeline("cold", source, work, cache, sets),
                     "warm": run_pipeline("warm", source, work, cache, [*warm_overrides(records, work, "warm"), *sets])}


def run_synthetic(rows: int, work: Path, sets: list[str]) -> tuple[list[Any], dict[str, dict[str, Any]]]:
    """warm on a synthetic split of ``rows``, the cache filled by a cold run of the bundled rows."""
    cache = work / "cache"
    bundled = bundled_records(None)
    warm_up = run_pipeline("warm-up", bundled_source(bundled), work, cache, sets)
    log.info("warm-up (not reported): %d bundled rows, %.0f CPU-s", len(bundled), warm_up["cpu_s"])
    split = work / f"synthetic-{rows}.jsonl"
    records = synthetic_records(rows, split)
    source = [f"dataset.source={json.dumps(str(split))}"]
    return records, {"warm": run_pipeline("warm", source, work, cache, [*warm_overrides(records, work, "warm"), *sets])}


def run_ray_at_rest(idle_s: float) -> float:
    """CPU-seconds of a local Ray that starts as the pipeline's does, idles ``idle_s`` and stops."""
    cgroup = new_cgroup(f"rest{idle_s:g}")
    before = _reaped_cpu_s()
    subprocess.run([sys.executable, str(Path(__file__).resolve()), "--rest", str(idle_s)], check=True,
                   preexec_fn=(lambda: join_cgroup(cgroup)) if cgroup else None)
    _reap_orphans()
    return cgroup_cpu_s(cgroup) if cgroup else _reaped_cpu_s() - before


def rest_main(idle_s: float) -> None:
    import ray

    ray.init(num_cpus=(os.cpu_count() or 1) + 1, include_dashboard=False, log_to_driver=False)
    time.sleep(idle_s)
    ray.shutdown()


def child_main(spec: dict[str, Any]) -> None:
    """In the child: a local Ray with the instrumentation hook, then the real pipeline run."""
    import pyarrow.parquet as pq
    import ray

    from linteval_ray.config import load_config
    from linteval_ray.pipeline.run import run

    ray.init(num_cpus=(os.cpu_count() or 1) + 1, include_dashboard=False, log_to_driver=False,
             runtime_env={"worker_process_setup_hook": "bench.instrument.install"})
    started = time.monotonic()
    outcome = run(load_config(None, spec["overrides"]))
    wall = time.monotonic() - started
    ray.shutdown()
    rows = pq.read_table(Path(outcome.output) / "results.parquet").to_pylist()
    own = resource.getrusage(resource.RUSAGE_SELF)
    Path(spec["report"]).write_text(json.dumps({
        "run_wall_s": wall, "driver_cpu_s": own.ru_utime + own.ru_stime,
        "verdicts": {r["sample_id"]: r["verdict"] if r["status"] == "evaluated" else r["status"] for r in rows},
    }))


def _reaped_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _reap_orphans() -> None:
    """Wait for the Ray processes the child left behind (they were re-parented to us)."""
    deadline = time.monotonic() + REAP_DEADLINE_S
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid:
            continue
        if time.monotonic() > deadline:
            for child in _children():
                log.warning("killing leftover Ray process %d", child)
                os.kill(child, signal.SIGKILL)
            deadline = float("inf")
        time.sleep(0.2)


def _children() -> list[int]:
    pids: list[int] = []
    for task in Path("/proc/self/task").glob("*"):
        pids += [int(p) for p in (task / "children").read_text().split()]
    return pids


# -- results -------------------------------------------------------------------------------------------


def summarise(name: str, raw: dict[str, Any], records, ray_start_stop_cpu_s: float = 0.0) -> dict[str, Any]:
    """Per-sample figures of one run. Pipeline runs also get the overhead beyond Ray's fixed
    start and stop (what a longer run amortises), as a share of validation CPU."""
    n = len(records)
    per_language = Counter(r.language for r in records)
    stage_cpu = {f"{stage}_{lang}": raw["stages"].get(stage, {}).get(lang, 0.0)
                 for stage in STAGES for lang in LANGUAGES}
    stage_total = sum(stage_cpu.values())
    overhead = raw["cpu_s"] - stage_total
    summary = {
        "mode": name, "samples": n, "wall_s": raw["wall_s"], "samples_per_s": n / raw["wall_s"],
        "cpu_s": raw["cpu_s"], "cpu_s_per_sample": raw["cpu_s"] / n,
        "stage_cpu_s_per_sample": {k: v / n for k, v in stage_cpu.items()},
        "validation_cpu_s_per_sample": stage_total / n,
        "overhead_cpu_s_per_sample": overhead / n,
        "overhead_share_of_validation": overhead / stage_total if stage_total else 0.0,
        "cpu_s_per_sample_by_language": {
            lang: sum(raw["stages"].get(s, {}).get(lang, 0.0) for s in STAGES) / per_language[lang]
            for lang in LANGUAGES if per_language[lang]},
        "actors": raw["actors"], "verdicts": raw["verdicts"],
        "actors_outside_stages_cpu_s_per_sample": (sum(a["tree_cpu_s"] for a in raw["actors"]) - stage_total) / n,
        "other_by_process_cpu_s_per_sample": {k: v / n for k, v in raw.get("by_process", {}).items()},
    }
    if "driver_cpu_s" in raw:
        summary["driver_cpu_s_per_sample"] = raw["driver_cpu_s"] / n
        steady = max(0.0, overhead - ray_start_stop_cpu_s)
        summary["overhead_beyond_ray_start_share"] = steady / stage_total if stage_total else 0.0
    return summary


def table(results: dict[str, dict[str, Any]]) -> str:
    modes = list(results)
    rows = [("CPU-s per sample", *modes)]
    for key in results[modes[0]]["stage_cpu_s_per_sample"]:
        per_mode = (f"{results[m]['stage_cpu_s_per_sample'][key]:.2f}" for m in modes)
        rows.append((f"  {key.replace('_', ' ')}", *per_mode))
    rows.append(("  = validation", *(f"{results[m]['validation_cpu_s_per_sample']:.2f}" for m in modes)))
    rows.append(("  other (Ray, driver, start-up)", *(f"{results[m]['overhead_cpu_s_per_sample']:.2f}" for m in modes)))
    rows.append(("    of which the driver", *(f"{results[m].get('driver_cpu_s_per_sample', 0):.2f}" for m in modes)))
    rows.append(("    in actors, outside the stages",
                 *(f"{results[m]['actors_outside_stages_cpu_s_per_sample']:.2f}" if results[m]["actors"] else "-"
                   for m in modes)))
    rows.append(("  = total", *(f"{results[m]['cpu_s_per_sample']:.2f}" for m in modes)))
    rows.append(("other / validation", *(f"{results[m]['overhead_share_of_validation']:.1%}" for m in modes)))
    rows.append(("  beyond Ray's start/stop", *(f"{results[m]['overhead_beyond_ray_start_share']:.1%}"
                                                 if "overhead_beyond_ray_start_share" in results[m] else "-"
                                                 for m in modes)))
    for lang in LANGUAGES:
        rows.append((f"validation {lang} per {lang} sample",
                     *(f"{results[m]['cpu_s_per_sample_by_language'].get(lang, 0):.2f}" for m in modes)))
    rows.append(("samples/s (wall)", *(f"{results[m]['samples_per_s']:.3f}" for m in modes)))
    if "naive" in results:
        rows.append(("total CPU / naive",
                     *(f"{results[m]['cpu_s'] / results['naive']['cpu_s']:.3f}" for m in modes)))
    rss = [max((a["peak_rss_mb"] for a in results[m]["actors"]), default=0) for m in modes]
    rows.append(("peak RSS per actor (MB)", *(f"{v:.0f}" if v else "-" for v in rss)))
    kids = [max((a["children_peak_rss_mb"] for a in results[m]["actors"]), default=0) for m in modes]
    rows.append(("  largest child process (MB)", *(f"{v:.0f}" if v else "-" for v in kids)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                               for i, (c, w) in enumerate(zip(r, widths, strict=True)))
                     for r in rows)


def figures(results: dict[str, dict[str, Any]], records) -> dict[str, Any]:
    """The per-sample figures ``linteval_ray.plan`` reads (its Figures model)."""
    from linteval_ray.plan import default_figures

    warm, cold = results["warm"], results["cold"]
    problems = len({r.problem_id for r in records})
    validation = {lang: round(warm["cpu_s_per_sample_by_language"].get(lang, default_figures().validation_cpu_s[lang]),
                              2) for lang in LANGUAGES}
    setup = max(0.0, (cold["validation_cpu_s_per_sample"] - warm["validation_cpu_s_per_sample"])
                * len(records) / problems)
    where = (f"measured by bench/run.py on {len(records)} bundled samples ({problems} problems), "
             f"{datetime.now(UTC):%Y-%m-%d}, {os.cpu_count()}-core machine, CPU-seconds of the actors' process trees")
    return {
        "validation_cpu_s": validation,
        "problem_setup_cpu_s": round(setup, 2),
        "sources": {
            "validation_cpu_s": f"{where}: warm pipeline (problem work cached), lint + compile + tests per sample",
            "problem_setup_cpu_s": f"{where}: (cold - warm) validation CPU per problem (testlib tools, tests, "
            "original's answers and lint)",
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, help="first N bundled samples (by sample_id); default all")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="config override for both pipeline runs (e.g. validation.pool.batch_size=8)")
    parser.add_argument("--no-figures", action="store_true", help="do not rewrite bench/figures.json")
    parser.add_argument("--synthetic", type=int, metavar="N",
                        help="warm only, on N bundled rows cycled with distinct ids (no naive, no figures.json)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--rest", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    if args.child:
        child_main(json.loads(args.child))
        return 0
    if args.rest is not None:
        rest_main(args.rest)
        return 0

    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    with tempfile.TemporaryDirectory(prefix="linteval-bench-") as tmp:
        work = Path(tmp)
        records, raw = (run_synthetic(args.synthetic, work, args.set) if args.synthetic
                        else run_three(bundled_records(args.samples), work, args.set))
    rest = {"start_stop_cpu_s": run_ray_at_rest(0.0), "idle_run_cpu_s": run_ray_at_rest(REST_IDLE_S),
            "idle_s": REST_IDLE_S}
    rest["idle_cpu_s_per_s"] = max(0.0, rest["idle_run_cpu_s"] - rest["start_stop_cpu_s"]) / REST_IDLE_S
    results = {name: summarise(name, r, records, rest["start_stop_cpu_s"]) for name, r in raw.items()}
    same = len({json.dumps(r["verdicts"], sort_keys=True) for r in results.values()}) == 1
    printed = table(results)
    print(printed)
    print(f"verdicts identical across the {len(results)} runs: {same}")
    for name, result in results.items():
        if result["other_by_process_cpu_s_per_sample"]:
            print(f"{name}: CPU-s per sample by long-lived process (sampled every {SAMPLE_EVERY_S} s): "
                  + ", ".join(f"{k} {v:.3f}" for k, v in result["other_by_process_cpu_s_per_sample"].items()
                              if v >= 0.001))
    print(f"a local Ray at rest: {rest['start_stop_cpu_s']:.1f} CPU-s to start and stop, then "
          f"{rest['idle_cpu_s_per_s']:.3f} CPU-s per second idle")
    if "naive" in results:
        print(f"ratios: cold/naive {results['cold']['cpu_s'] / results['naive']['cpu_s']:.3f}, "
              f"warm/naive {results['warm']['cpu_s'] / results['naive']['cpu_s']:.3f} (total CPU)")
    other = results["warm"]["overhead_share_of_validation"]
    print(f"warm: other / validation {other:.1%} at {len(records)} rows "
          f"(target <= {TARGET_OTHER_SHARE:.0%}: {'PASS' if other <= TARGET_OTHER_SHARE else 'MISS'})")
    payload = {"command": " ".join(sys.argv), "at": datetime.now(UTC).isoformat(), "samples": len(records),
               "cpus": os.cpu_count(), "overrides": args.set, "verdicts_identical": same, "ray_at_rest": rest,
               "results": results,
               "table": printed}
    out_dir = BENCH_DIR / "results"
    out_dir.mkdir(exist_ok=True)
    (out_dir / f"{datetime.now(UTC):%Y%m%d-%H%M%S}.json").write_text(json.dumps(payload, indent=2))
    if args.json:
        args.json.write_text(json.dumps(payload, indent=2))
    if not args.no_figures and not args.synthetic:
        FIGURES_FILE.write_text(json.dumps(figures(results, records), indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
