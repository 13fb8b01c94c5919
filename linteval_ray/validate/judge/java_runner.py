"""Java tests in one JVM per revision: ``JavaRunner.java`` runs them one after the other in the box.

A fresh JVM per test spends most of a Java test's CPU time starting up (class loading, JIT,
GC set-up). The runner starts one JVM per revision, in the same bwrap box, under the same
RLIMIT_AS, heap (``-Xmx`` = the memory limit), ``-Xss64m`` and flags as a fresh run, and runs
every test in a fresh class loader (static state starts anew) with the test's input as
System.in and its own captured System.out / System.err. ``System.exit(n)`` is caught by a
SecurityManager (``-Djava.security.manager=allow``: deprecated in 17, still supported).

Verdicts cannot drift because the runner only keeps tests that ended normally: exit status 0,
output within the cap, no thread or process left running, no output after System.exit, and
CPU time under ``WARM_CPU_SHARE`` of the test's limit (a fresh JVM also pays its start and a
cold JIT, so a warm test near the limit could pass where a fresh one fails). At the first test
that did not, the runner halts, and that test and every later one go through the fresh-JVM
path (``run.run_one_test``) as before: time limits, crashes, memory and output limits are all
judged there, by the reference path. Outputs are checked as for any language (``check.py``).

No program code runs outside its own test's window (see ``JavaRunner.java``): the runner reports
"abort" when anything of the program ran between tests or one of its own threads died, and then
nothing of the run is kept; so is a report that does not end as the runner ends it, and a run whose
CPU time, measured by the kernel outside the JVM, exceeds what its tests reported by more than
a small bound (``HIDDEN_CPU_*``: the runner's own work between tests): the whole revision goes to fresh
JVMs.

A program whose classes name what could reach outside its own test (``FileDescriptor``: the
runner's real stdin/stdout; shutdown hooks; the system class loader; ``setAccessible``;
internal APIs) or run code outside it (a ``finalize`` method, or JDK classes whose finalizers
call methods a subclass overrides: AWT graphics, image I/O streams, Swing text, a single-thread
executor) is not run here at all. A hostile program stays in the box either way: this only
decides which of its own outputs are judged.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from linteval_ray.languages.base import OneJvm
from linteval_ray.validate.cache import default_cache_dir
from linteval_ray.validate.judge.compile import PROGRAM_DIR, CompiledProgram
from linteval_ray.validate.judge.limits import run_memory
from linteval_ray.validate.judge.warm import WarmTest, within_budgets
from linteval_ray.validate.sandbox.base import Mount, RunLimits
from linteval_ray.validate.scratch import read_regular_file, work_dir

if TYPE_CHECKING:
    from linteval_ray.validate.judge.context import JudgeContext
    from linteval_ray.validate.judge.problem import TestSet
    from linteval_ray.validate.judge.records import ReferenceTest

log = logging.getLogger(__name__)

SOURCE = Path(__file__).with_name("JavaRunner.java")
RUNNER_DIR = "/runner"  # the runner's classes, read-only in the box
INPUTS_DIR = "/inputs"  # the problem's test inputs, read-only in the box
PLAN_FILE = "plan.tsv"
OUTPUT_DIR = "out"  # in the box's work dir: one output file per test
# A warm test using more than this share of its CPU limit is judged again by a fresh JVM.
WARM_CPU_SHARE = 0.5
# The outputs of all tests together, in output caps: they are held until checked (fresh runs hold
# one per job), so a revision printing near the cap on every test goes back to fresh runs.
OUTPUT_BUDGET_CAPS = 2
STARTUP_CPU_S = 5.0  # the runner's own start, on top of the tests' budgets
STARTUP_WALL_S = 30.0
REPORT_BYTES = 1 << 20
COMPILE_TIMEOUT_S = 120
# The JVM's own warnings go to stdout by default: the runner's stdout is its report.
JVM_LOG_TO_STDERR = ("-Xlog:disable", "-Xlog:all=warning:stderr")
# Byte strings in a class file that keep a program out of the runner (see the module docstring).
UNSUPPORTED = (b"java/io/FileDescriptor", b"addShutdownHook", b"getSystemClassLoader", b"setAccessible",
               b"setSecurityManager", b"sun/misc/", b"jdk/internal/",
               # code that runs on the JVM's finalizer thread, outside any test
               b"finalize", b"java/awt/", b"javax/imageio/", b"javax/swing/", b"newSingleThreadExecutor")
# The runner's own CPU between tests (restores, class loaders, the JIT and GC catching up), beyond
# which the run's CPU as the kernel counts it may not exceed the start-up and the tests' figures.
HIDDEN_CPU_FIXED_S = 0.25
HIDDEN_CPU_PER_TEST_S = 0.02
# A test the watchdog stopped used its CPU budget and at most this much more (its poll interval).
WATCHDOG_SLACK_S = 0.05


def fits_one_jvm(program: CompiledProgram) -> bool:
    """A language whose runner is one JVM (``OneJvm``: Java), and no class of the program names
    an API that reaches past its own test."""
    if not isinstance(program.spec.runner, OneJvm):
        return False
    for path in program.artifact_dir.rglob("*.class"):
        data = path.read_bytes()
        if any(marker in data for marker in UNSUPPORTED):
            log.debug("%s names an API the one-JVM runner does not take: fresh JVMs", path.name)
            return False
    return True


def run_in_one_jvm(
    program: CompiledProgram, tests: list[tuple[ReferenceTest, float]], inputs: TestSet, ctx: JudgeContext
) -> list[WarmTest]:
    """The longest prefix of ``tests`` (each with its time limit) that ended normally in one JVM."""
    if not tests:
        return []
    cap = ctx.limits.output_mb << 20
    with work_dir(ctx.scratch, "java-runner-") as workdir:
        (workdir / OUTPUT_DIR).mkdir()
        (workdir / PLAN_FILE).write_text("".join(
            f"{test.name}\t{INPUTS_DIR}/{test.name}.in\t{OUTPUT_DIR}/{i}\t{int(WARM_CPU_SHARE * limit * 1000)}\t"
            f"{int(limit * 1000)}\n" for i, (test, limit) in enumerate(tests)))
        runner = _one_jvm(program)
        argv = [program.tools[runner.java], f"-Xmx{ctx.limits.memory_mb}m", *runner.jvm_flags,
                "-Djava.security.manager=allow", *JVM_LOG_TO_STDERR, "-cp", RUNNER_DIR, "JavaRunner", PROGRAM_DIR,
                program.entry, PLAN_FILE, str(OUTPUT_BUDGET_CAPS * cap), str(cap)]
        address_space, resident = run_memory(program, ctx)
        limits = RunLimits(
            wall_s=STARTUP_WALL_S + sum(limit for _, limit in tests),
            cpu_s=STARTUP_CPU_S + sum(WARM_CPU_SHARE * limit for _, limit in tests),
            memory_mb=address_space,
            resident_mb=resident,
            output_bytes=REPORT_BYTES,
            file_size_mb=ctx.limits.output_mb,
        )
        mounts = [program.mount(), Mount(src=runner_classes(program.tools[runner.javac]), dst=RUNNER_DIR),
                  Mount(src=inputs.directory, dst=INPUTS_DIR)]
        result = ctx.run_in(workdir, argv, limits=limits, mounts=mounts, env=program.env())
        report = read_report(result.stdout, [test.name for test, _ in tests], workdir)
    budgets = [WARM_CPU_SHARE * limit for _, limit in tests]
    why = report.why_not_kept or hidden_cpu(report, result.cpu_s, budgets)
    done = [] if why else within_budgets(report.done, [limit for _, limit in tests], WARM_CPU_SHARE)
    if len(done) < len(tests):
        log.debug("one-JVM runner kept %d of %d tests: %s (exit %s, signal %s: %s)", len(done), len(tests),
                  why or report.last_line, result.exit_code, result.signal,
                  result.stderr.decode("utf-8", "replace")[-300:])
    return done


class RunnerReport(BaseModel):
    """What the runner reported: the tests that ended normally, in order, and how it ended."""

    startup_cpu_s: float = 0.0
    done: list[WarmTest] = Field(default_factory=list)
    stopped: bool = False  # at the test after the last done one ("stop"), else all done ("end")
    why_not_kept: str | None = Field(default=None, description="set when nothing of the run may be kept")
    last_line: str = ""


def read_report(stdout: bytes, names: list[str], workdir: Path) -> RunnerReport:
    """"start", the "done" lines in test order (each with the digest of the output file the runner
    wrote), then "end" or "stop NAME ..." for the next test; anything else keeps nothing ("abort":
    something ran outside its test or a runner thread died; no last line: the runner was killed)."""
    lines = stdout.decode("utf-8", "replace").split("\n")
    first = lines[0].split(" ")
    if len(first) != 2 or first[0] != "start" or not first[1].isdigit():
        return RunnerReport(why_not_kept=f"no start line: {lines[0][:100]!r}")
    report = RunnerReport(startup_cpu_s=int(first[1]) / 1e9)
    for line in lines[1:]:
        report.last_line = line[:200]
        words = line.split(" ")
        name = names[len(report.done)] if len(report.done) < len(names) else None
        if words == ["end"] and name is None:
            return report
        if words[0] == "stop" and len(words) > 2 and words[1] == name:
            report.stopped = True
            return report
        if len(words) != 5 or words[:2] != ["done", name] or not all(w.isdigit() for w in words[2:4]):
            break
        output = read_regular_file(workdir / OUTPUT_DIR, str(len(report.done)))
        if output is None or hashlib.sha256(output).hexdigest() != words[4]:
            break  # rewritten after its test
        report.done.append(WarmTest(name=name, stdout=output, cpu_s=int(words[2]) / 1e9, wall_s=int(words[3]) / 1e9))
    report.why_not_kept = f"the report does not end as the runner ends it: {report.last_line!r}"
    return report


def hidden_cpu(report: RunnerReport, box_cpu_s: float, budgets: list[float]) -> str | None:
    """Why the run's CPU, as the kernel counted it outside the JVM, is more than the runner's start-up,
    its tests' figures (and the budget of the test it stopped at) and its own work between tests
    account for; None when it is not."""
    reported = report.startup_cpu_s + sum(test.cpu_s for test in report.done)
    if report.stopped:
        reported += budgets[len(report.done)] + WATCHDOG_SLACK_S
    bound = HIDDEN_CPU_FIXED_S + HIDDEN_CPU_PER_TEST_S * len(budgets)
    if box_cpu_s <= reported + bound:
        return None
    return f"the box used {box_cpu_s:.2f} CPU-s, its tests and start-up reported {reported:.2f}"


def _one_jvm(program: CompiledProgram) -> OneJvm:
    runner = program.spec.runner
    assert isinstance(runner, OneJvm), "only a program that fits one JVM runs in it"
    return runner


@functools.cache
def runner_classes(javac: str) -> Path:
    """``JavaRunner.class`` (and its nested classes) for this source, compiled once per node into
    the node-local cache (atomically: a node's actors race). Our own code: compiled on the host."""
    source = SOURCE.read_bytes()
    target = default_cache_dir() / "bin" / f"java-runner-{hashlib.sha256(source + javac.encode()).hexdigest()[:16]}"
    if (target / "JavaRunner.class").is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=".java-runner-"))
    try:
        done = subprocess.run([javac, "-nowarn", "-d", str(staging), str(SOURCE)], capture_output=True, text=True,
                              timeout=COMPILE_TIMEOUT_S, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"cannot compile {SOURCE.name}: {done.stderr.strip()}")
        for path in [staging, *staging.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)  # read by the sandbox uid
        try:
            os.rename(staging, target)
        except OSError:
            if not (target / "JavaRunner.class").is_file():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target
