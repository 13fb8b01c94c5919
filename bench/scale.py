"""The data plane at scale: synthetic splits of the bundled problems, run end to end.

    .venv/bin/python bench/scale.py [--sizes 10000 100000] [--set validation.pool.batch_size=64] [--json out.json]

Each size is a JSONL split of that many rows made by cycling the bundled records with
distinct sample ids (``<id>~<k>``; problems unchanged, so their cached work is shared),
replayed from an empty predictions file: every row is a ``generation_error`` that needs
no compile or test, so what is measured is reading, checking, moving, storing, reducing and
reporting rows. (A generation_error row still has its original linted, which the content
cache holds after an unreported warm-up run of the bundled rows.) Each run is a child
process (a fresh driver on its own local Ray) that measures itself:

- driver peak RSS: VmHWM of the driver process when the reduction starts (the pipeline)
  and at the end (reduce + report included);
- time to the first result row: from ``run()`` to the first summary batch the driver
  receives (rows durably stored in a shard), in the full run and, for the growth ratio, as
  the median of ``--first-row-probes`` short runs per size, the sizes alternating (each
  probe a fresh driver and Ray into a new folder, stopped at its first row): one run per
  size says more about the machine's moment (Ray's start is most of it) than about size;
- rows/s end to end: result rows / wall time of ``run()`` (hashing, Ray start, pipeline,
  reduce, report), and rows/s of the pipeline alone;
- shard count: files under ``OUTPUT/shards``;
- reduce and report time;
- largest driver put: the largest object ``ray.put`` stored from the driver process
  (Ray Data's own puts included: ``from_items`` blocks, datasource metadata), by the size
  the object store reports;
- CPU-s of the whole run (the child in a cpuacct cgroup of its own, as ``bench/run.py``
  measures: the driver, every Ray process and Python worker, whatever they start) and rows
  per CPU-s: a figure the shared machine's load does not move as it moves wall time.

The targets of issue 12 are printed next to the figures (PASS/MISS); they are not tests.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: make `bench` and the package importable
    sys.path.insert(0, str(ROOT))

from bench.cpu import cgroup_cpu_s, join_cgroup, new_cgroup  # noqa: E402

DEFAULT_SIZES = (10_000, 100_000)
# Bigger batches than the defaults: per-block overhead dominates rows that need no work.
DEFAULT_SETS = ("validation.pool.batch_size=64", "validation.pool.store_batch_size=64")
TARGET_RATE = 200.0  # rows/s end to end on 2 cores, cached or trivial rows
TARGET_RSS_MB = 600.0  # driver peak at 100k rows
TARGET_GROWTH = 1.2  # 100k vs 10k: driver RSS and time to the first row
TARGET_REDUCE_REPORT_S = 60.0  # 100k rows on 2 cores


def write_split(path: Path, rows: int, languages: list[str] | None = None) -> None:
    """``rows`` bundled records (of ``languages``), cycled, each with a sample id of its own."""
    originals = _bundled_rows(languages)
    with path.open("w") as out:
        for k in range(rows):
            record = originals[k % len(originals)]
            out.write(json.dumps({**record, "sample_id": f"{record['sample_id']}~{k // len(originals)}"}) + "\n")


def _bundled_rows(languages: list[str] | None = None) -> list[dict[str, Any]]:
    from linteval_ray.schema.bundled import bundled_path

    rows = [json.loads(line) for line in bundled_path().read_text().splitlines() if line.strip()]
    return [r for r in rows if languages is None or r["language"] in languages]


def vm_hwm_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


class FirstRowReached(Exception):
    """A probe's run stops here: its time to the first row is all it measures."""


class Meters:
    """Wraps a few driver functions to time them; their behaviour is unchanged (but for a
    probe, which stops at its first row)."""

    def __init__(self, stop_at_first_row: bool = False) -> None:
        self.start = time.monotonic()
        self.stop_at_first_row = stop_at_first_row
        self.first_row_s: float | None = None
        self.reduce_start_s: float | None = None
        self.reduce_s = 0.0
        self.report_s = 0.0
        self.pipeline_rss_mb = 0.0
        self.largest_put = 0

    def install(self) -> None:
        import ray

        import linteval_ray.pipeline.run as run_module
        from linteval_ray.pipeline.progress import Progress

        update = Progress.update

        def first_row(progress: Progress, statuses: Any, passed: Any) -> None:
            if self.first_row_s is None and len(statuses):
                self.first_row_s = time.monotonic() - self.start
                if self.stop_at_first_row:
                    raise FirstRowReached
            update(progress, statuses, passed)

        Progress.update = first_row  # type: ignore[method-assign]
        run_module.reduce_run = self._timed(run_module.reduce_run, "reduce")  # type: ignore[assignment]
        run_module.publish = self._timed(run_module.publish, "report")  # type: ignore[assignment]
        put = ray.put

        def measured_put(value: Any, **kwargs: Any) -> Any:
            ref = put(value, **kwargs)
            self.largest_put = max(self.largest_put, _object_size(ref, value))
            return ref

        ray.put = measured_put

    def _timed(self, fn: Callable[..., Any], what: str) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            began = time.monotonic()
            if what == "reduce":
                self.reduce_start_s = began - self.start
                self.pipeline_rss_mb = vm_hwm_mb()
            try:
                return fn(*args, **kwargs)
            finally:
                setattr(self, f"{what}_s", getattr(self, f"{what}_s") + time.monotonic() - began)

        return timed


def _object_size(ref: Any, value: Any) -> int:
    import pickle

    import ray

    try:
        size = ray.experimental.get_object_locations([ref])[ref].get("object_size")
    except Exception:  # noqa: BLE001 - small objects live in the caller's memory store, not Plasma
        size = None
    return int(size) if size else len(pickle.dumps(value, protocol=5))


def child(spec: dict[str, Any]) -> None:
    """One run in this process; writes its figures to ``spec['figures']``."""
    import logging

    from linteval_ray.config import load_config
    from linteval_ray.pipeline.run import run

    logging.basicConfig(level=logging.WARNING)
    meters = Meters(stop_at_first_row=spec.get("probe", False))
    meters.install()
    config = load_config(None, spec["overrides"])
    try:
        outcome = run(config)
    except FirstRowReached:
        Path(spec["figures"]).write_text(json.dumps({"first_row_s": meters.first_row_s}))
        return
    wall = time.monotonic() - meters.start
    pipeline_s = meters.reduce_start_s or wall
    figures = {
        "rows": outcome.reduction.rows,
        "wall_s": wall,
        "first_row_s": meters.first_row_s,
        "rows_per_s": outcome.reduction.rows / wall,
        "pipeline_s": pipeline_s,
        "pipeline_rows_per_s": outcome.reduction.rows / pipeline_s,
        "shards": len(list(Path(outcome.output, "shards").glob("*.parquet"))),
        "reduce_s": meters.reduce_s,
        "report_s": meters.report_s,
        "pipeline_peak_rss_mb": meters.pipeline_rss_mb,
        "peak_rss_mb": vm_hwm_mb(),
        "largest_put_bytes": meters.largest_put,
        "statuses": dict(outcome.reduction.metrics.statuses),
    }
    Path(spec["figures"]).write_text(json.dumps(figures))


def measure(size: int, work: Path, sets: list[str], cache_dir: str,
            languages: list[str] | None = None) -> dict[str, Any]:
    """A full run of a new split of ``size`` rows."""
    split = work / f"split-{size}.jsonl"
    write_split(split, size, languages)
    result = _run_child(split, work / f"out-{size}", work, sets, cache_dir, probe=False)
    result["size"] = size
    result["split_mb"] = split.stat().st_size / 1e6
    return result


def probe_first_rows(sizes: list[int], rounds: int, work: Path, sets: list[str], cache_dir: str) -> dict[int, float]:
    """Median time to the first row per size over ``rounds`` probes, the sizes alternating
    (on the splits ``measure`` wrote)."""
    times: dict[int, list[float]] = {size: [] for size in sizes}
    for round_ in range(rounds):
        for size in sizes:
            out = work / f"probe-{size}-{round_}"
            figures = _run_child(work / f"split-{size}.jsonl", out, work, sets, cache_dir, probe=True)
            times[size].append(figures["first_row_s"])
    print(f"first-row probes (s): {times}", flush=True)
    return {size: statistics.median(values) for size, values in times.items()}


def _run_child(split: Path, out: Path, work: Path, sets: list[str], cache_dir: str, probe: bool) -> dict[str, Any]:
    predictions = work / "no-predictions.jsonl"
    predictions.write_text("")
    figures = out.with_name(out.name + ".figures.json")
    overrides = [f"dataset.source={json.dumps(str(split))}", f"output={json.dumps(str(out))}",
                 "generation.backend=replay", f"generation.replay.predictions={json.dumps(str(predictions))}",
                 *sets]
    env = {**os.environ, "LINTEVAL_CACHE_DIR": cache_dir, "PYTHONPATH": str(ROOT)}
    env.pop("RAY_ADDRESS", None)
    spec = {"overrides": overrides, "figures": str(figures), "probe": probe}
    cgroup = new_cgroup(out.name)
    subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", json.dumps(spec)], env=env,
                   check=True, stdout=subprocess.DEVNULL,
                   preexec_fn=(lambda: join_cgroup(cgroup)) if cgroup else None)
    result: dict[str, Any] = json.loads(figures.read_text())
    result["cpu_s"] = cgroup_cpu_s(cgroup) if cgroup else None
    return result


def _cpu_line(r: dict[str, Any]) -> str:
    if r.get("cpu_s") is None:
        return "  CPU-s of the run          - (no writable cpuacct cgroup)"
    return f"  CPU-s of the run          {r['cpu_s']:.1f} ({r['rows'] / r['cpu_s']:.1f} rows per CPU-s, all processes)"


def _verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def describe(results: list[dict[str, Any]], first_rows: dict[int, float] | None = None) -> str:
    lines = []
    for r in results:
        lines += [
            f"{r['size']} rows ({r['split_mb']:.0f} MB of JSONL), {r['rows']} result rows, statuses {r['statuses']}",
            f"  driver peak RSS           {r['pipeline_peak_rss_mb']:.0f} MB in the pipeline, "
            f"{r['peak_rss_mb']:.0f} MB with reduce + report   (target at 100k <= {TARGET_RSS_MB:.0f} MB: "
            f"{_verdict(r['peak_rss_mb'] <= TARGET_RSS_MB)})",
            f"  time to first result row  {r['first_row_s']:.1f} s",
            f"  rows/s end to end         {r['rows_per_s']:.1f}   (pipeline alone {r['pipeline_rows_per_s']:.1f}; "
            f"target >= {TARGET_RATE:.0f}: {_verdict(r['rows_per_s'] >= TARGET_RATE)})",
            f"  shards                    {r['shards']}",
            f"  reduce + report           {r['reduce_s']:.1f} s + {r['report_s']:.1f} s   "
            f"(target at 100k <= {TARGET_REDUCE_REPORT_S:.0f} s: "
            f"{_verdict(r['reduce_s'] + r['report_s'] <= TARGET_REDUCE_REPORT_S)})",
            f"  largest driver put        {r['largest_put_bytes'] / 1e6:.3f} MB",
            f"  wall                      {r['wall_s']:.1f} s",
            _cpu_line(r),
        ]
    if len(results) >= 2:
        small, large = results[0], results[-1]
        rss = large["peak_rss_mb"] / small["peak_rss_mb"]
        probed = first_rows is not None and {small["size"], large["size"]} <= first_rows.keys()
        if probed:
            assert first_rows is not None
            first = first_rows[large["size"]] / first_rows[small["size"]]
        else:
            first = large["first_row_s"] / small["first_row_s"]
        lines += [
            f"{large['size']} vs {small['size']} rows:",
            f"  driver peak RSS x{rss:.2f}   (target <= x{TARGET_GROWTH}: {_verdict(rss <= TARGET_GROWTH)})",
            f"  time to first row x{first:.2f}   ({'median of the probes' if probed else 'the full runs'}; "
            f"target <= x{TARGET_GROWTH}: {_verdict(first <= TARGET_GROWTH)})",
        ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(DEFAULT_SIZES))
    parser.add_argument("--set", dest="sets", action="append", default=None,
                        help=f"config override for every run (default: {' '.join(DEFAULT_SETS)})")
    parser.add_argument("--json", type=Path, help="write the figures here too")
    parser.add_argument("--keep", type=Path, help="work here (splits, run folders) and keep it")
    parser.add_argument("--cache", help="content cache folder (default: a new one under the work folder)")
    parser.add_argument("--language", dest="languages", action="append", choices=("cpp", "py3", "java"),
                        help="cycle only the bundled rows of this language (repeatable; default all)")
    parser.add_argument("--no-warm-up", dest="warm_up", action="store_false",
                        help="skip the warm-up run (the cache is warm already)")
    parser.add_argument("--first-row-probes", type=int, default=3, metavar="K",
                        help="short runs per size, alternating, for the time-to-first-row ratio (0: use the full runs)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(json.loads(args.child))
        return 0
    sets = args.sets if args.sets is not None else list(DEFAULT_SETS)
    results = []
    with tempfile.TemporaryDirectory(prefix="lr-scale-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        cache = Path(args.cache) if args.cache else work / "cache"
        cache.mkdir(parents=True, exist_ok=True)
        if args.warm_up:  # not reported: the bundled rows once, so the originals' lint is cached
            warm = measure(len(_bundled_rows(args.languages)), work, sets, str(cache), args.languages)
            print(f"warm-up: {warm['rows']} rows in {warm['wall_s']:.0f} s (cache {cache})", flush=True)
        for size in args.sizes:
            results.append(measure(size, work, sets, str(cache), args.languages))
            print(describe(results[-1:]), flush=True)
        first_rows = (probe_first_rows(args.sizes, args.first_row_probes, work, sets, str(cache))
                      if args.first_row_probes and len(args.sizes) >= 2 else None)
    print(f"settings: {' '.join(sets) or 'defaults'}; {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    print(describe(results, first_rows))
    if args.json:
        args.json.write_text(json.dumps({"runs": results, "first_row_probes_s": first_rows}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
