"""Reduce + report of a finished run folder, alone, in this process: wall and CPU seconds, peak RSS.

    PYTHONPATH=<tree> .venv/bin/python bench/reduce_report.py grow RUN BIG --times 10
    PYTHONPATH=<tree> .venv/bin/python bench/reduce_report.py measure RUN WORK

``grow`` makes a run folder ``--times`` as big as ``RUN`` (a ``bench/scale.py --keep`` run of
the bundled rows cycled, e.g. ``out-10000``): each shard copied with new sample ids (``<id>~<k>``
shifted past the largest ``k``), and its split written by ``scale.write_split``, so the report
finds every original. ``measure`` copies ``RUN``'s shards and manifest to ``WORK/run`` (one folder
name, so two trees write the same title and their outputs can be compared with ``diff -r``),
then times ``reduce_run`` and ``publish`` as ``linteval-ray reduce`` runs them. CPU seconds are
this process's (user + system, its threads included): on a shared, loaded machine they move
less than wall seconds.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: make `bench` and the package importable
    sys.path.insert(0, str(ROOT))


def grow(run: Path, big: Path, times: int) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from bench.scale import write_split
    from linteval_ray.store.folder import RunFolder
    from linteval_ray.store.shards import write_shard

    shards = sorted((run / "shards").glob("*.parquet"))
    tables = [pq.read_table(shard) for shard in shards]
    cycles = 1 + max(int(s.rsplit("~", 1)[1]) for t in tables for s in t.column("sample_id").to_pylist())
    folder = RunFolder.open(str(big))
    for table in tables:
        for copy in range(times):
            sample_ids = [f"{base}~{int(k) + cycles * copy}" for base, k in
                          (s.rsplit("~", 1) for s in table.column("sample_id").to_pylist())]
            row_ids = [f"{s}/{d}" for s, d in zip(sample_ids, table.column("draw").to_pylist(), strict=True)]
            grown = table.set_column(table.schema.get_field_index("sample_id"), "sample_id", pa.array(sample_ids))
            write_shard(folder, grown.set_column(grown.schema.get_field_index("row_id"), "row_id", pa.array(row_ids)))
    split = big / f"split-{sum(t.num_rows for t in tables) * times}.jsonl"
    write_split(split, sum(t.num_rows for t in tables) * times)
    manifest = json.loads((run / "manifest.json").read_text())
    (big / "manifest.json").write_text(json.dumps({**manifest, "dataset_url": str(split.resolve())}))


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(run: Path, work: Path) -> str:
    from bench.scale import vm_hwm_mb
    from linteval_ray.reduce.reduce import reduce_run
    from linteval_ray.report.publish import publish  # and the site, render and matplotlib: before the baseline
    from linteval_ray.store.folder import RunFolder

    target = work / "run"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(run / "shards", target / "shards")
    shutil.copy(run / "manifest.json", target / "manifest.json")
    folder = RunFolder.open(str(target))
    start_mb, began, cpu = vm_hwm_mb(), time.monotonic(), _cpu_s()
    reduction = reduce_run(folder)
    reduced, reduce_cpu, reduce_mb = time.monotonic(), _cpu_s(), vm_hwm_mb()
    publish(folder, reduction.results, reduction.metrics)
    done, report_cpu = time.monotonic(), _cpu_s()
    return (f"{reduction.rows} rows: reduce {reduced - began:.1f} s (CPU {reduce_cpu - cpu:.1f} s), report "
            f"{done - reduced:.1f} s (CPU {report_cpu - reduce_cpu:.1f} s); peak RSS {start_mb:.0f} MB at start, "
            f"{reduce_mb:.0f} MB after reduce, {vm_hwm_mb():.0f} MB after report")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    grown = commands.add_parser("grow", help="a run folder --times as big, with its split")
    grown.add_argument("run", type=Path)
    grown.add_argument("big", type=Path)
    grown.add_argument("--times", type=int, default=10)
    measured = commands.add_parser("measure", help="reduce + report of a copy of RUN in WORK/run")
    measured.add_argument("run", type=Path)
    measured.add_argument("work", type=Path)
    args = parser.parse_args(argv)
    if args.command == "grow":
        grow(args.run, args.big, args.times)
    else:
        print(measure(args.run, args.work), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
