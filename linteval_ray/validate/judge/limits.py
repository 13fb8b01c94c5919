"""How long and how big a revision may run on one test, and what says it went past.

Time limit = max(``time_floor_s``, ``time_factor`` x the original's CPU time on that input), on
the run's own CPU time (user + system of every process of its box, as its init reaped them), so a
busy host slows a program without failing it; a wall-clock cap of ``WALL_CAP_FACTOR`` x the limit +
``WALL_CAP_EXTRA_S`` stops sleepers. Memory and output limits from ``TestLimits``. The same for a
revision's tests (``run.run_one_test``) and the original's reference runs (``problem.py``).

Memory is the memory a run uses: where the sandbox has a memory cgroup per run
(``Sandbox.counts_memory``: as root), C++ and Python runs have no address-space limit and their
processes may use the memory limit together; the kernel's OOM killer ends them past it. So a thread
whose stack glibc reserves at RLIMIT_STACK (the memory limit, for deep recursion) costs what it
touches, as on a judge that measures memory used. No run has an address-space limit under a cgroup:
a JVM reserves far more than it uses (``-Xmx`` bounds its heap at the memory limit; its cgroup adds
``LanguageSpec.memory_overhead_mb``, memory the runtime itself uses: thread stacks, metaspace, code), and
a runtime that only reserves address space up front (``address_space_reserve_mb``: Go) gets a cgroup at
the memory limit. Without memory cgroups every run is bounded by its address space (the memory limit,
the runtime's overhead and its reservation).
``memory_limit`` is decided from the kernel's counts only (``memory_evidence``), never from what a
program prints.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from linteval_ray.languages.registry import language as language_spec
from linteval_ray.schema.record import Language
from linteval_ray.validate.judge.records import ReferenceTest
from linteval_ray.validate.sandbox.base import RunLimits, RunResult

if TYPE_CHECKING:
    from linteval_ray.validate.judge.compile import CompiledProgram
    from linteval_ray.validate.judge.context import JudgeContext

# The wall clock only stops programs that do not use their CPU (sleep, block on input): a
# CPU-bound program still fits with three other busy processes per core.
WALL_CAP_FACTOR = 4.0
WALL_CAP_EXTRA_S = 5.0
# Without memory cgroups: a run that did not end normally with this share of its address-space limit
# resident failed for its memory (a failed allocation gets no further).
MEMORY_USED_SHARE = 0.8
HEAP_REPORT_TAIL_BYTES = 64 << 10


def time_limit_s(test: ReferenceTest, ctx: JudgeContext) -> float:
    """The CPU-time limit of a revision on ``test``."""
    return max(ctx.limits.time_floor_s, ctx.limits.time_factor * test.cpu_s)


def wall_cap_s(limit_s: float) -> float:
    return WALL_CAP_FACTOR * limit_s + WALL_CAP_EXTRA_S


def test_run_limits(program: CompiledProgram, limit_s: float, ctx: JudgeContext) -> RunLimits:
    """The limits of ``program``'s run on a test whose time limit is ``limit_s``."""
    address_space, resident = run_memory(program, ctx)
    return RunLimits(
        wall_s=wall_cap_s(limit_s) if ctx.wall_cap_s is None else ctx.wall_cap_s,
        cpu_s=limit_s,
        memory_mb=address_space,
        resident_mb=resident,
        output_bytes=ctx.limits.output_mb << 20,
        file_size_mb=ctx.limits.output_mb,
        stack_mb=program.stack_mb(ctx.limits.memory_mb),
    )


def run_memory(program: CompiledProgram, ctx: JudgeContext) -> tuple[int | None, int | None]:
    """RLIMIT_AS and the memory cgroup's limit of a run of ``program`` (see the module docstring)."""
    spec, memory = program.spec, ctx.limits.memory_mb
    if not ctx.sandbox.counts_memory:
        return spec.address_space_mb(memory), None
    # The cgroup bounds what the run uses, its runtime's own memory (the JVM's) included; what a runtime
    # only reserves (the JVM's spaces and stacks, Go's arenas) costs nothing under it.
    return None, spec.used_memory_mb(memory)


def memory_evidence(result: RunResult, memory_mb: int, language: Language) -> str | None:
    """Why a run failed for its memory, from the kernel's own counts; None when nothing says so.

    - The kernel's OOM killer ended a process of it at its memory cgroup's limit.
    - A runtime with a heap of its own (the JVM: ``-Xmx`` is the memory limit) fails by itself when
      its heap is full, and the kernel sees the process, not the heap: its peak says little (a deep
      stack, or garbage not yet collected, fills it as much; G1 leaves the tails of its humongous
      regions untouched, so a heap full of big arrays peaks below it). It failed at its memory limit
      when the kernel counted its peak at ``MEMORY_USED_SHARE`` of that limit at least and the runtime
      reported its heap exhausted; those words alone, with less memory in use, never make a memory
      limit.
    - Without a memory cgroup (address-space limits): it did not end normally with its largest
      process's peak at ``MEMORY_USED_SHARE`` of the limit at least (a failed allocation gets no
      further)."""
    if result.oom_killed:
        return f"the kernel's OOM killer ended it at the memory limit ({memory_mb} MB)"
    peak = result.memory_peak_mb if result.memory_peak_mb is not None else result.peak_rss_mb
    if result.ok or peak is None:
        return None
    report = language_spec(language).heap_exhausted
    if report is not None:
        if peak >= MEMORY_USED_SHARE * memory_mb and report in result.stderr[-HEAP_REPORT_TAIL_BYTES:]:
            return f"its heap was exhausted with {peak:.0f} MB in use, its limit {memory_mb} MB"
        return None
    if result.memory_peak_mb is None and peak >= MEMORY_USED_SHARE * memory_mb:
        return f"it failed with {peak:.0f} MB resident, its address space limited to {memory_mb} MB"
    return None
