"""A set of 3 saved-answer models in one job against 3 separate runs of them, side by side.

    .venv/bin/python bench/sets.py [--samples N] [--json out.json]

Three "models" answer the bundled split (first N samples, default all 40): the dataset's reference
revisions, the same with a comment line appended to each (``bench/run.py``'s perturbation), and the
originals returned unchanged. Each measured run is a child process on its own local Ray in a cgroup
of its own (``bench/run.py``'s method: every Ray process and everything they start is counted):

- **separate**: ``linteval-ray run`` once per model, one after the other, sharing one content cache
  (empty before the first): run 1 is cold, runs 2 and 3 are warm runs of a model alone;
- **set**: ``linteval-ray run`` of the three as one set (``linteval_ray/sets``), on an empty cache.

It prints CPU-s and wall of each, what the models after the first cost in the set (set - separate
run 1) against their warm runs alone, and what the set saves: the Ray start-ups (a local Ray
started and stopped at rest, measured) and validation-pool warm-ups (each run's actors' CPU
outside the judging stages: start-up, linters' and JVMs' warm-up, idling) it does not repeat.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import logging
import os
import resource
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: make `bench` importable
    sys.path.insert(0, str(ROOT))

from bench.run import (  # noqa: E402
    BENCH_DIR,
    PR_SET_CHILD_SUBREAPER,
    bundled_records,
    bundled_source,
    perturbed_predictions,
    run_pipeline,
    run_ray_at_rest,
)

log = logging.getLogger("bench")
MODELS = ("reference", "commented", "unchanged")


def write_models(records: list[Any], work: Path) -> dict[str, Path]:
    """The three models' saved answers."""
    paths = {name: work / f"{name}.jsonl" for name in MODELS}
    with paths["reference"].open("w") as out:
        for r in records:
            out.write(json.dumps({"sample_id": r.sample_id, "raw_response": r.raw_response or None,
                                  "revised_code": None if r.raw_response else r.revised_code}) + "\n")
    perturbed_predictions(records, paths["commented"])
    with paths["unchanged"].open("w") as out:
        for r in records:
            out.write(json.dumps({"sample_id": r.sample_id, "revised_code": r.code}) + "\n")
    return paths


def actors_outside_stages(raw: dict[str, Any]) -> float:
    """The validation actors' CPU outside lint, compile and tests: the pool's start-up and warm-up."""
    stages = sum(cpu for by_language in raw["stages"].values() for cpu in by_language.values())
    return sum(a["tree_cpu_s"] for a in raw["actors"]) - stages


def measure(records: list[Any], work: Path, overrides: list[str]) -> dict[str, Any]:
    models = write_models(records, work)
    source = bundled_source(records)
    separate = {}
    for name in MODELS:
        answers = [f"generation.replay.predictions={json.dumps(str(models[name]))}"]
        separate[name] = run_pipeline(f"separate-{name}", source, work, work / "cache-separate",
                                      [*answers, *overrides])
    entries = [{"name": name, "predictions": str(models[name])} for name in MODELS]
    together = run_pipeline("set", source, work, work / "cache-set", [f"models={json.dumps(entries)}", *overrides],
                            script=Path(__file__))
    return {"separate": separate, "set": together, "ray_start_stop_cpu_s": run_ray_at_rest(0.0)}


def report(raw: dict[str, Any], samples: int) -> dict[str, Any]:
    separate, together = raw["separate"], raw["set"]
    first, *later = MODELS
    runs = {f"separate {n} ({'cold' if n == first else 'warm'})": separate[n] for n in MODELS} | {"set of 3": together}
    lines = [f"{'':34}{'CPU-s':>9}{'wall s':>9}{'pool warm-up CPU-s':>20}"]
    for label, run in runs.items():
        lines.append(f"{label:34}{run['cpu_s']:9.1f}{run['process_wall_s']:9.1f}{actors_outside_stages(run):20.1f}")
    total_cpu = sum(separate[n]["cpu_s"] for n in MODELS)
    total_wall = sum(separate[n]["process_wall_s"] for n in MODELS)
    lines.append(f"{'separate, all 3':34}{total_cpu:9.1f}{total_wall:9.1f}"
                 f"{sum(actors_outside_stages(separate[n]) for n in MODELS):20.1f}")
    after_first = together["cpu_s"] - separate[first]["cpu_s"]
    warm_alone = sum(separate[n]["cpu_s"] for n in later)
    saved_ray = len(later) * raw["ray_start_stop_cpu_s"]
    saved_pool = sum(actors_outside_stages(separate[n]) for n in MODELS) - actors_outside_stages(together)
    same = all(json.dumps(separate[n]["verdicts"], sort_keys=True) ==
               json.dumps(together["verdicts"][n], sort_keys=True) for n in MODELS)
    lines += [
        f"models after the first, in the set: {after_first:.1f} CPU-s (set - separate run 1) vs {warm_alone:.1f} "
        f"as warm runs alone ({'no more' if after_first <= warm_alone else 'MORE'}: "
        f"{after_first / warm_alone:.2f}x)",
        f"the set saves {total_cpu - together['cpu_s']:.1f} CPU-s ({1 - together['cpu_s'] / total_cpu:.0%}) and "
        f"{total_wall - together['process_wall_s']:.1f} s of wall ({1 - together['process_wall_s'] / total_wall:.0%}; "
        "wall: each job's whole process, Ray's start and stop included)",
        f"  Ray start-ups not repeated: {len(later)} x {raw['ray_start_stop_cpu_s']:.1f} = {saved_ray:.1f} CPU-s "
        "(a local Ray started and stopped at rest)",
        f"  pool warm-ups not repeated: {saved_pool:.1f} CPU-s (validation actors' CPU outside the stages, "
        "separate runs - set)",
        f"verdicts identical (each model, set vs alone): {same}",
    ]
    return {"samples": samples, "table": "\n".join(lines), "after_first_cpu_s": after_first,
            "warm_alone_cpu_s": warm_alone, "saved_cpu_s": total_cpu - together["cpu_s"],
            "saved_wall_s": total_wall - together["process_wall_s"], "saved_ray_start_cpu_s": saved_ray,
            "saved_pool_warm_up_cpu_s": saved_pool, "verdicts_identical": same}


def child_main(spec: dict[str, Any]) -> None:
    """In the child: a local Ray with the instrumentation hook, then the set."""
    import pyarrow.parquet as pq
    import ray

    from linteval_ray.config import load_config
    from linteval_ray.sets.run import run_set

    ray.init(num_cpus=(os.cpu_count() or 1) + 1, include_dashboard=False, log_to_driver=False,
             runtime_env={"worker_process_setup_hook": "bench.instrument.install"})
    started = time.monotonic()
    outcome = run_set(load_config(None, spec["overrides"]))
    wall = time.monotonic() - started
    ray.shutdown()
    verdicts = {}
    for name in MODELS:
        rows = pq.read_table(Path(outcome.output) / "models" / name / "results.parquet").to_pylist()
        verdicts[name] = {r["sample_id"]: r["verdict"] if r["status"] == "evaluated" else r["status"] for r in rows}
    own = resource.getrusage(resource.RUSAGE_SELF)
    Path(spec["report"]).write_text(json.dumps({"run_wall_s": wall, "driver_cpu_s": own.ru_utime + own.ru_stime,
                                                "verdicts": verdicts}))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, help="first N bundled samples (by sample_id); default all")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="config override for every run")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    if args.child:
        child_main(json.loads(args.child))
        return 0
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    records = bundled_records(args.samples)
    with tempfile.TemporaryDirectory(prefix="linteval-bench-sets-") as tmp:
        raw = measure(records, Path(tmp), args.set)
    result = report(raw, len(records))
    print(result["table"])
    payload = {"command": " ".join(sys.argv), "at": datetime.now(UTC).isoformat(), "cpus": os.cpu_count(),
               "overrides": args.set, **result, "raw": raw}
    out_dir = BENCH_DIR / "results"
    out_dir.mkdir(exist_ok=True)
    (out_dir / f"sets-{datetime.now(UTC):%Y%m%d-%H%M%S}.json").write_text(json.dumps(payload, indent=2))
    if args.json:
        args.json.write_text(json.dumps(payload, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
