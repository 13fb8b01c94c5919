"""What Ray Data's scheduling loop costs the driver per second, with no work in the batches.

An actor pool of 2 whose batches only sleep (1 s each), so every CPU-s the driver spends is
the streaming executor's: its loop wakes every ``WAIT_FOR_TASK_COMPLETION_TIMEOUT_S`` (0.1 s
in Ray 2.60, a module constant, not a setting) whether or not a batch ended. Variants run one
after the other, each a fresh driver and Ray:

    PYTHONPATH=$PWD .venv/bin/python bench/driver_loop.py [--variants default no-bars wait=0.3]

``no-bars`` turns Ray Data's progress bars off; ``wait=S`` sets the loop's wait to S seconds (a
private constant: measured to know what it would buy, not done by the product).
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time
from typing import Any

BATCHES = 120


def own_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class SleepingBatch:
    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        time.sleep(1.0)
        return batch


def measure(variant: str) -> None:
    """In a child: one pipeline, the driver's CPU-s from its first batch to its last."""
    import ray
    import ray.data

    ray.init(num_cpus=3, include_dashboard=False)
    if variant == "no-bars":
        ray.data.DataContext.get_current().enable_progress_bars = False
    elif variant.startswith("wait="):
        from ray.data._internal.execution import streaming_executor_state

        streaming_executor_state.WAIT_FOR_TASK_COMPLETION_TIMEOUT_S = float(variant.removeprefix("wait="))
    ds = ray.data.range(16 * BATCHES, override_num_blocks=BATCHES).map_batches(
        SleepingBatch, batch_size=16, concurrency=2, num_cpus=1)
    batches = iter(ds.iter_batches(batch_size=None))
    next(batches)  # Ray's start and the actors' are not the loop's cost
    cpu, started = own_cpu_s(), time.monotonic()
    count = 1 + sum(1 for _ in batches)
    wall, cpu = time.monotonic() - started, own_cpu_s() - cpu
    print(f"{variant:>10}: driver {cpu:.2f} CPU-s over {wall:.1f} s = {cpu / wall:.4f} CPU-s per second "
          f"({count} batches)", flush=True)
    ray.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", nargs="+", default=["default", "no-bars", "wait=0.3"])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        measure(args.child)
        return
    for variant in args.variants:
        subprocess.run([sys.executable, __file__, "--child", variant], check=True, stderr=subprocess.DEVNULL)


if __name__ == "__main__":
    main()
