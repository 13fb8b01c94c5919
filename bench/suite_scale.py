"""``linteval-ray suite``'s data plane at scale: synthetic pools of 10^4 to 10^6 solutions, end to end.

    PYTHONPATH=$PWD python -m bench.suite_scale [--sizes 10000 100000 1000000] [--judged 200] [--json out.json]

Each size is a deepmind/code_contests-shaped pool (Parquet) of that many solutions: ``--judged`` real
Python 3 solutions of a one-test problem the test source holds, judged in the sandbox, and the rest, a
thousand per row, of problems it does not hold: the judge refuses each (``invalid_input``, "no test
source holds this problem") without compiling or running anything, so what they cost is the data
plane: reading and checking the pool, the join, cutting units, moving them through Ray, building and
writing the rows as shards, the reduction and the cards. Each size runs as a child process (a fresh
driver and local Ray) that measures itself:

- driver peak RSS (VmHWM) when the reduction starts and at the end;
- time to the first unit's summary (the first rows durably written);
- rows/s end to end (``run_suite``: identities, Ray start, index, stream, reduction) and of the stream;
- shards, reduction seconds, and the run's CPU-s (its cpuacct cgroup: every process it started).

Then, in this process, CPU-s per solution by stage: reading and cutting the pool (a read task's work),
a refused row's judge bookkeeping and shard write (the actor's work without the sandbox), a real
solution judged warm (compile and its test in boxes), and the reduction (from the largest run).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: make `bench` and the package importable
    sys.path.insert(0, str(ROOT))

from bench.cpu import cgroup_cpu_s, join_cgroup, new_cgroup, tree_cpu_s  # noqa: E402

PER_ROW = 1000  # solutions per pool row of a problem the test source does not hold
# A solution of ~1.5 KB, about deepmind/code_contests' mean: units of tiny ones (< 100 KB) would ride inline
# through the driver's in-process object store, which real pools' do not.
PAD = 1400
JUDGED_PROBLEM = "9000_A. Echo"
SOLUTIONS = pa.struct([("language", pa.list_(pa.int64())), ("solution", pa.list_(pa.large_string()))])
POOL_SCHEMA = pa.schema([("name", pa.large_string()), ("solutions", SOLUTIONS), ("incorrect_solutions", SOLUTIONS)])


def write_inputs(folder: Path, size: int, judged: int) -> tuple[Path, Path]:
    """The test source (one problem, one test) and a pool of ``size`` solutions."""
    tests = folder / "tests.jsonl"
    tests.write_text(json.dumps({"name": JUDGED_PROBLEM, "description": "Print the line you read.",
                                 "corner_cases": [{"input": {"stdin": "hello\n"}, "output": {"stdout": "hello\n"}}],
                                 "checker": ""}) + "\n")
    pool = folder / f"pool-{size}.parquet"
    with pq.ParquetWriter(pool, POOL_SCHEMA, compression="zstd") as out:
        codes = [f"# solution {i}\nprint(input())\n" for i in range(judged)]
        out.write_table(pa.Table.from_pylist([{"name": JUDGED_PROBLEM, "solutions": {
            "language": [3] * judged, "solution": codes}, "incorrect_solutions": None}], schema=POOL_SCHEMA))
        for start in range(0, size - judged, PER_ROW):
            count = min(PER_ROW, size - judged - start)
            half = count // 2
            code = [f"# {start + i}" + " " * PAD + "\nimport sys\nprint(sum(map(int, sys.stdin.read().split())))\n"
                    for i in range(count)]
            row = {"name": f"9001_{start // PER_ROW}. Absent", "solutions": {"language": [3] * half,
                                                                            "solution": code[:half]},
                   "incorrect_solutions": {"language": [2] * (count - half), "solution": code[half:]}}
            out.write_table(pa.Table.from_pylist([row], schema=POOL_SCHEMA), row_group_size=1)
    return tests, pool


def vm_hwm_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def child(spec: dict[str, Any]) -> None:
    """One run in this process; its figures to ``spec['figures']``."""
    import logging

    import linteval_ray.suite.run as run_module
    from linteval_ray.pipeline.progress import Progress
    from linteval_ray.suite.command import load_suite_config

    logging.basicConfig(level=logging.WARNING)
    start = time.monotonic()
    marks: dict[str, float] = {}
    update = Progress.update

    def first_unit(progress: Progress, statuses: Any, accepted: Any) -> None:
        marks.setdefault("first_row_s", time.monotonic() - start)
        update(progress, statuses, accepted)

    Progress.update = first_unit  # type: ignore[method-assign]
    reduce_suite = run_module.reduce_suite

    def timed_reduce(*args: Any, **kwargs: Any) -> Any:
        marks["reduce_start_s"], marks["pipeline_rss_mb"] = time.monotonic() - start, vm_hwm_mb()
        began = time.process_time()
        try:
            return reduce_suite(*args, **kwargs)
        finally:
            marks["reduce_cpu_s"] = time.process_time() - began

    run_module.reduce_suite = timed_reduce  # type: ignore[assignment]
    outcome = run_module.run_suite(load_suite_config(None, spec["overrides"]))
    wall = time.monotonic() - start
    rows = sum(outcome.reduction.metrics.statuses.values())
    stream_s = marks["reduce_start_s"]
    Path(spec["figures"]).write_text(json.dumps({
        "rows": rows, "statuses": outcome.reduction.metrics.statuses, "wall_s": wall, "rows_per_s": rows / wall,
        "first_row_s": marks.get("first_row_s"), "stream_rows_per_s": rows / stream_s,
        "reduce_s": wall - stream_s, "reduce_cpu_s": marks["reduce_cpu_s"], "shards": outcome.reduction.shards,
        "pipeline_peak_rss_mb": marks["pipeline_rss_mb"], "peak_rss_mb": vm_hwm_mb()}))


def measure(size: int, judged: int, work: Path, cache_dir: str) -> dict[str, Any]:
    tests, pool = write_inputs(work, size, judged)
    out = work / f"out-{size}"
    figures = work / f"figures-{size}.json"
    overrides = [f"tests={json.dumps([str(tests)])}", f"pools={json.dumps([str(pool)])}",
                 f"output={json.dumps(str(out))}", "suite.python2_also_as_python3=false"]
    env = {**os.environ, "LINTEVAL_CACHE_DIR": cache_dir, "PYTHONPATH": str(ROOT)}
    env.pop("RAY_ADDRESS", None)
    cgroup = new_cgroup(out.name)
    subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child",
                    json.dumps({"overrides": overrides, "figures": str(figures)})], env=env, check=True,
                   stdout=subprocess.DEVNULL, preexec_fn=(lambda: join_cgroup(cgroup)) if cgroup else None)
    result: dict[str, Any] = json.loads(figures.read_text())
    result.update(size=size, pool_mb=pool.stat().st_size / 1e6, cpu_s=cgroup_cpu_s(cgroup) if cgroup else None)
    return result


def stage_costs(work: Path, size: int, judged: int) -> dict[str, float]:
    """CPU-s per solution of each stage, measured in this process (see the module docstring)."""
    from linteval_ray.config import ValidationConfig
    from linteval_ray.load.readers import iter_rows
    from linteval_ray.store.folder import RunFolder
    from linteval_ray.suite.config import SuiteSettings
    from linteval_ray.suite.index import ProblemIndex
    from linteval_ray.suite.judge import JudgeUnits
    from linteval_ray.suite.pools import PoolReader
    from linteval_ray.suite.source import payload
    from linteval_ray.suite.units import Cutter, unit_key

    settings = SuiteSettings()
    folder = RunFolder.open(str(work / f"out-{size}"))
    index = ProblemIndex.load(folder)
    pool = work / f"pool-{size}.parquet"
    reader = PoolReader("deepmind", pool.name, settings.max_solution_kb * 1024)
    began, payloads, read = time.process_time(), [], 0
    for unit in Cutter(settings.unit_solutions, settings.unit_mb << 20).units(
            reader.entries(iter_rows(str(pool), columns=reader.columns))):
        text = payload(unit_key("p00f00000", unit.number), unit.entries, index, None)
        read += len(unit.entries)
        if len(payloads) < 40 and unit.entries[0].problem != JUDGED_PROBLEM:
            payloads.append(json.loads(text))
    read_cpu = (time.process_time() - began) / read
    scratch = RunFolder.open(tempfile.mkdtemp(prefix="suite-stage-"))
    actor = JudgeUnits(ValidationConfig(), scratch, settings)
    try:
        began = tree_cpu_s()
        refused = sum(len(actor.judge_unit(data)["statuses"]) for data in payloads)
        refused_cpu = (tree_cpu_s() - began) / refused
        real = json.loads(payload(unit_key("p00f99999", 0), _entries(pool, reader)[:judged], index, None))
        actor.judge_unit({**real, "entries": real["entries"][:5]})  # warm: the problem prepared, the box server up
        began = tree_cpu_s()
        actor.judge_unit(real)
        judged_cpu = (tree_cpu_s() - began) / judged
    finally:
        actor.close()
    return {"read_and_cut": read_cpu, "refused_row_judge_and_write": refused_cpu, "real_solution_judged": judged_cpu}


def _entries(pool: Path, reader: Any) -> list[Any]:
    from linteval_ray.load.readers import iter_rows

    found = []
    for entry in reader.entries(iter_rows(str(pool), columns=reader.columns)):
        if entry.problem != JUDGED_PROBLEM:
            break
        found.append(entry)
    return found


def describe(results: list[dict[str, Any]], stages: dict[str, float]) -> str:
    lines = []
    for r in results:
        cpu = f"{r['cpu_s']:.0f} CPU-s ({r['rows'] / r['cpu_s']:.0f} rows per CPU-s)" if r.get("cpu_s") else "-"
        lines += [f"{r['size']} solutions ({r['pool_mb']:.0f} MB of Parquet): statuses {r['statuses']}",
                  f"  driver peak RSS          {r['pipeline_peak_rss_mb']:.0f} MB to the reduction, "
                  f"{r['peak_rss_mb']:.0f} MB at the end",
                  f"  time to the first row    {r['first_row_s']:.1f} s",
                  f"  rows/s                   {r['rows_per_s']:.0f} end to end, {r['stream_rows_per_s']:.0f} "
                  "in the stream",
                  f"  shards                   {r['shards']}; reduction + cards {r['reduce_s']:.1f} s "
                  f"({r['reduce_cpu_s']:.1f} CPU-s)",
                  f"  the run                  {cpu}"]
    lines.append("CPU-s per solution by stage: " + ", ".join(f"{k} {v * 1000:.2f} ms" for k, v in stages.items()))
    return "\n".join(lines)


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        child(json.loads(sys.argv[2]))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--judged", type=int, default=200, help="real solutions judged in the sandbox, per size")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="suite-scale-"))
    cache_dir = str(work / "cache")
    results = []
    for size in args.sizes:
        results.append(measure(size, args.judged, work, cache_dir))
        print(json.dumps(results[-1]), flush=True)
    os.environ["LINTEVAL_CACHE_DIR"] = cache_dir
    stages = stage_costs(work, max(args.sizes), args.judged)
    largest = max(results, key=lambda r: r["size"])
    stages["reduction_and_cards"] = largest["reduce_cpu_s"] / largest["rows"]
    print(describe(results, stages))
    if args.json:
        args.json.write_text(json.dumps({"runs": results, "cpu_s_per_solution": stages}, indent=2) + "\n")


if __name__ == "__main__":
    main()
