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

A program whose classes name what could reach outside its own test (``FileDescriptor``: the
runner's real stdin/stdout; shutdown hooks; the system class loader; ``setAccessible``;
internal APIs) is not run here at all. A hostile program stays in the box either way: this
only decides which of its own outputs are judged.
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

from linteval_ray.languages.java import RUN_FLAGS
from linteval_ray.validate.cache import default_cache_dir
from linteval_ray.validate.judge.compile import PROGRAM_DIR, CompiledProgram
from linteval_ray.validate.judge.warm import WarmTest, within_budgets
from linteval_ray.validate.sandbox.base import Mount, RunLimits
from linteval_ray.validate.scratch import read_regular_file, work_dir

if TYPE_CHECKING:
    from linteval_ray.validate.judge.context import JudgeContext
    from linteval_ray.validate.judge.problem import ReferenceTest, TestSet

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
               b"setSecurityManager", b"sun/misc/", b"jdk/internal/")


def fits_one_jvm(program: CompiledProgram) -> bool:
    """Java, and no class of it names an API that reaches past its own test."""
    if program.language != "java":
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
        argv = [program.java, f"-Xmx{ctx.limits.memory_mb}m", *RUN_FLAGS, "-Djava.security.manager=allow",
                *JVM_LOG_TO_STDERR, "-cp", RUNNER_DIR, "JavaRunner", PROGRAM_DIR, program.entry, PLAN_FILE,
                str(OUTPUT_BUDGET_CAPS * cap), str(cap)]
        limits = RunLimits(
            wall_s=STARTUP_WALL_S + sum(limit for _, limit in tests),
            cpu_s=STARTUP_CPU_S + sum(WARM_CPU_SHARE * limit for _, limit in tests),
            memory_mb=program.address_space_mb(ctx.limits.memory_mb),
            output_bytes=REPORT_BYTES,
            file_size_mb=ctx.limits.output_mb,
        )
        mounts = [program.mount(), Mount(src=runner_classes(ctx.toolchain.javac), dst=RUNNER_DIR),
                  Mount(src=inputs.directory, dst=INPUTS_DIR)]
        result = ctx.run_in(workdir, argv, limits=limits, mounts=mounts, env=program.env())
        done = within_budgets(_read_report(result.stdout, [test.name for test, _ in tests], workdir),
                              [limit for _, limit in tests], WARM_CPU_SHARE)
    if len(done) < len(tests):
        log.debug("one-JVM runner kept %d of %d tests: %s (exit %s, signal %s: %s)", len(done), len(tests),
                  _stop_line(result.stdout), result.exit_code, result.signal,
                  result.stderr.decode("utf-8", "replace")[-300:])
    return done


def _read_report(stdout: bytes, names: list[str], workdir: Path) -> list[WarmTest]:
    """The "done" lines in test order whose output file is the one the runner wrote."""
    done: list[WarmTest] = []
    for line, name in zip(stdout.decode("utf-8", "replace").splitlines(), names, strict=False):
        words = line.split(" ")
        if len(words) != 5 or words[:2] != ["done", name]:
            break
        output = read_regular_file(workdir / OUTPUT_DIR, str(len(done)))
        if output is None or hashlib.sha256(output).hexdigest() != words[4]:
            break  # rewritten by a later test: judged afresh
        done.append(WarmTest(name=name, stdout=output, cpu_s=int(words[2]) / 1e9, wall_s=int(words[3]) / 1e9))
    return done


def _stop_line(stdout: bytes) -> str:
    lines = [line for line in stdout.decode("utf-8", "replace").splitlines() if line.startswith("stop ")]
    return lines[-1] if lines else "no report (the runner was killed)"


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
