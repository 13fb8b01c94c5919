"""Java tests in one JVM per revision judge exactly as a fresh JVM per test.

Every program is judged twice with real javac, JVMs, checkers and bwrap: ``java_tests:
fresh_jvm`` (the reference path) and ``one_jvm``; verdicts, counts and per-test verdicts must
agree. Each case also says whether the runner keeps its tests (normal endings) or hands them
to fresh JVMs (exit codes, exceptions, loops, leftover threads, output after exit...), so a
runner that silently fell back on everything would fail here.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from bench.naive import reference_revision
from linteval_ray.config import JavaTests
from linteval_ray.config import TestLimits as Limits  # aliased: pytest would collect Test*
from linteval_ray.load.presets import bundled_path
from linteval_ray.schema.record import Language, LintEvalRecord
from linteval_ray.schema.result import Verdict
from linteval_ray.validate.judge import (
    JudgeContext,
    JudgeResult,
    PreparedProblem,
    compile_program,
    judge_revision,
    prepare_problem,
)
from linteval_ray.validate.judge.java_runner import fits_one_jvm, run_in_one_jvm
from linteval_ray.validate.judge.limits import time_limit_s
from tests.security.corpus import JAVA, Targets
from tests.validate.judge.conftest import LIMITS


def solving(body: str, *, imports: str = "", members: str = "") -> str:
    """A program of the sum/mean problem: ``body`` runs in main after ``s`` (sum) and ``n`` are read."""
    return f"""import java.util.*;
import java.io.*;
{imports}
public class Main {{
{members}
    static String answer(Scanner in) {{
        int n = in.nextInt();
        long s = 0;
        for (int i = 0; i < n; i++) s += in.nextLong();
        return s + " " + ((double) s / n);
    }}
    public static void main(String[] args) throws Exception {{
{body}
    }}
}}
"""


ANSWER = "System.out.println(answer(new Scanner(System.in)));"
WORKER = 'new Thread(null, () -> {{ {} }}, "worker", 1 << 20)'
BIG_STACK = 'Thread t = new Thread(null, () -> {{ {} }}, "solver", {}); t.start(); t.join();'
# name -> (code, the runner keeps every test)
CASES: dict[str, tuple[str, bool]] = {
    "plain": (solving(ANSWER), True),
    "static_state": (solving(f"calls++; if (calls > 1) System.out.println(calls); {ANSWER}",
                             members="static int calls;"), True),
    "exit_zero_after_flush": (solving("""
        PrintWriter out = new PrintWriter(System.out);
        out.println(answer(new Scanner(System.in)));
        out.flush();
        System.exit(0);"""), True),
    "exit_zero_loses_the_buffer": (solving("""
        PrintWriter out = new PrintWriter(System.out);
        out.println(answer(new Scanner(System.in)));
        System.exit(0);"""), True),
    "print_then_write_a_byte": (solving("System.out.print(answer(new Scanner(System.in))); System.out.write('\\n');"),
                                True),
    # Threads with the default 64 MiB stack and the usual big-stack idiom for deep recursion fit.
    "thread_with_the_default_stack": (solving(f"new Thread(() -> {{ }}).start(); {ANSWER}"), True),
    "solver_thread_with_a_64_mib_stack": (solving(BIG_STACK.format(ANSWER, "1 << 26")), True),
    "solver_thread_with_a_256_mib_stack": (solving(BIG_STACK.format(ANSWER, "1 << 28")), True),
    "answer_from_a_thread": (solving(WORKER.format(ANSWER) + ".start();"), True),
    "exit_zero_from_a_thread": (solving(WORKER.format(f"{ANSWER} System.out.flush(); System.exit(0);")
                                        + ".start(); Thread.sleep(100000);"), False),
    "deep_recursion": (solving(f"if (depth(200000) > 0) {ANSWER}",
                               members="static int depth(int n) { return n == 0 ? 1 : depth(n - 1) + 1; }"), True),
    "reads_past_the_input": (solving("""
        Scanner in = new Scanner(System.in);
        String a = answer(in);
        while (in.hasNext()) in.next();
        System.out.println(a);"""), True),
    "stderr_noise": (solving(f'for (int i = 0; i < 1000; i++) System.err.println("noise " + i); {ANSWER}'), True),
    "german_locale": (solving("""
        Locale.setDefault(Locale.GERMANY);
        Scanner in = new Scanner(System.in);
        int n = in.nextInt(); long s = 0;
        for (int i = 0; i < n; i++) s += in.nextLong();
        System.out.println(s + " " + String.format("%.3f", (double) s / n));"""), True),
    "exit_three": (solving(f"{ANSWER} System.exit(3);"), False),
    "exit_in_try_finally": (solving(f'try {{ {ANSWER} System.exit(0); }} finally {{ System.out.println("x"); }}'),
                            False),
    "catches_its_exit": (solving(f"{ANSWER} try {{ System.exit(0); }} catch (Throwable t) {{ {ANSWER} }}"), False),
    "exception_after_output": (solving(f'{ANSWER} throw new IllegalStateException("late");'), False),
    "daemon_thread_left_running": (solving(f"""
        Thread t = {WORKER.format("for (;;) Thread.onSpinWait();")};
        t.setDaemon(true);
        t.start();
        {ANSWER}"""), False),
    "huge_output": (solving('for (int i = 0; i < 300000; i++) System.out.println("0123456789");'), False),
    "file_descriptor_out": (solving("""
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out));
        out.println(answer(new Scanner(System.in)));
        out.flush();"""), False),
    # The judge's watchdog is not the program's: touching it is denied, and the test goes to a fresh JVM.
    "stops_the_watchdog_then_overruns": (solving(f"""
        Thread[] all = new Thread[64];
        int count = Thread.currentThread().getThreadGroup().enumerate(all);
        for (int i = 0; i < count; i++) {{
            if (all[i] != Thread.currentThread()) {{ all[i].interrupt(); }}
        }}
        long until = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < until) {{ Thread.onSpinWait(); }}
        {ANSWER}"""), False),
}
# Correct programs that solve in a thread of their own: they must pass, not hit the memory limit.
THREADED = ("thread_with_the_default_stack", "solver_thread_with_a_64_mib_stack", "solver_thread_with_a_256_mib_stack")
TARGETS = Targets(port=9, sentinel_pid=1 << 22, validator_pid=1 << 22, planted_file="/nonexistent/planted",
                  output_file="/nonexistent/out", other_work_file="/nonexistent/work", cache_dir="/nonexistent/cache")
HOSTILE = {case.name: TARGETS.fill(case.code) for case in JAVA}
SLOW = pytest.mark.slow


def outcome(result: JudgeResult) -> tuple[object, ...]:
    return (result.compile_ok, result.verdict, result.tests_generated, result.tests_passed, result.tests_failed,
            result.tests_dropped, result.tests_skipped, [t.verdict for t in result.tests])


def both_paths(code: str, problem: PreparedProblem, ctx: JudgeContext) -> dict[JavaTests, JudgeResult]:
    results = {}
    for mode in ("fresh_jvm", "one_jvm"):
        ctx.java_tests = mode
        results[mode] = judge_revision("java", code, problem, ctx)
    return results


def kept_by_runner(code: str, problem: PreparedProblem, ctx: JudgeContext) -> int:
    """How many tests the one-JVM runner itself judged (the rest went to fresh JVMs)."""
    out = Path(tempfile.mkdtemp(dir=ctx.scratch)) / "prog"
    compiled = compile_program("java", code, sandbox=ctx.sandbox, toolchain=ctx.toolchain, out_dir=out)
    assert compiled.program is not None, compiled.error
    if not fits_one_jvm(compiled.program):
        return 0
    tests = [(t, time_limit_s(t, ctx)) for t in problem.reference.tests]
    return len(run_in_one_jvm(compiled.program, tests, problem.tests, ctx))


@pytest.mark.parametrize("name", list(CASES))
def test_a_program_gets_the_same_verdicts_in_one_jvm_as_in_fresh_jvms(
    name: str, prepared: Callable[[Language], PreparedProblem], ctx: JudgeContext
) -> None:
    code, stays_warm = CASES[name]
    problem = prepared("cpp")
    results = both_paths(code, problem, ctx)
    assert outcome(results["one_jvm"]) == outcome(results["fresh_jvm"]), results["fresh_jvm"].detail
    if name in THREADED:
        assert results["fresh_jvm"].verdict == Verdict.PASSED, results["fresh_jvm"].detail
    kept = kept_by_runner(code, problem, ctx)
    assert kept == (len(problem.reference.tests) if stays_warm else 0)


@SLOW
@pytest.mark.timeout(1200)
@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_java_programs_get_the_same_verdicts_in_one_jvm(
    name: str, prepared: Callable[[Language], PreparedProblem], make_ctx: Callable[..., JudgeContext]
) -> None:
    # The run's default 2 s floor: a 64 MiB stack overflow takes 0.4-1.5 CPU-s in a fresh JVM
    # (page faults), so the tests' 1 s floor would judge it by the host's load.
    ctx = make_ctx(limits=LIMITS.model_copy(update={"time_floor_s": Limits().time_floor_s}))
    problem = prepared("cpp")
    results = both_paths(HOSTILE[name], problem, ctx)
    assert outcome(results["one_jvm"]) == outcome(results["fresh_jvm"]), results["fresh_jvm"].detail
    assert results["fresh_jvm"].verdict != "passed"
    assert kept_by_runner(HOSTILE[name], problem, ctx) == 0  # every one of them ends abnormally


# Each way a program in the runner could reach the runner's report (its real stdout), another
# test's output or the runner's classes; none is named in the class file, so only the policy stops it.
PROBES = """
    static boolean reached(java.util.concurrent.Callable<Object> attempt) {
        try { attempt.call(); return true; } catch (SecurityException denied) { return false; }
          catch (Exception other) { return false; }
    }
    static Object fileDescriptor() throws Exception {
        return Class.forName(String.join("", "java.io.File", "Descriptor")).getField("out").get(null);
    }
"""
REACH_ATTEMPTS = """
        boolean any = reached(() -> new FileOutputStream("/proc/self/fd/1"))
            || reached(() -> new FileOutputStream("out/1"))
            || reached(() -> Class.forName("java.io.FileOutputStream")
                   .getConstructor(fileDescriptor().getClass()).newInstance(fileDescriptor()))
            || reached(() -> ClassLoader.class.getMethod(String.join("", "getSystem", "ClassLoader")).invoke(null))
            || reached(() -> new ProcessBuilder("/bin/true").start())
            || reached(() -> { System.setOut(System.err); return null; });
        System.out.println(any ? "REACHED" : answer(new Scanner(System.in)));"""


def test_a_program_in_the_runner_reaches_nothing_of_the_judge(
    prepared: Callable[[Language], PreparedProblem], ctx: JudgeContext
) -> None:
    """It ends normally either way; what it printed says whether any door was open."""
    problem = prepared("cpp")
    out = Path(tempfile.mkdtemp(dir=ctx.scratch)) / "prog"
    code = solving(REACH_ATTEMPTS, members=PROBES)
    compiled = compile_program("java", code, sandbox=ctx.sandbox, toolchain=ctx.toolchain, out_dir=out)
    assert compiled.program is not None and fits_one_jvm(compiled.program), compiled.error
    tests = [(t, time_limit_s(t, ctx)) for t in problem.reference.tests]
    ran = run_in_one_jvm(compiled.program, tests, problem.tests, ctx)
    assert len(ran) == len(tests)
    assert not [t.name for t in ran if b"REACHED" in t.stdout]
    assert judge_revision("java", code, problem, ctx).verdict == "passed"


def bundled_java() -> list[LintEvalRecord]:
    records = [LintEvalRecord.model_validate_json(line) for line in bundled_path().read_text().splitlines()]
    return [r for r in records if r.language == "java"]


@SLOW
@pytest.mark.timeout(3600)  # 12 problems: 36 testlib compiles in a cold session cache
def test_bundled_java_samples_get_the_same_verdicts_and_counts_in_one_jvm(
    make_ctx: Callable[..., JudgeContext],
) -> None:
    ctx = make_ctx(limits=Limits())  # the defaults a run uses
    verdicts = set()
    for record in bundled_java():
        problem = prepare_problem(record, ctx)
        code = reference_revision(record) or ""
        results = both_paths(code, problem, ctx)
        assert outcome(results["one_jvm"]) == outcome(results["fresh_jvm"]), record.sample_id
        verdicts.add(results["fresh_jvm"].verdict)
        if results["fresh_jvm"].verdict == "passed":
            assert kept_by_runner(code, problem, ctx) == len(problem.reference.tests), record.sample_id
    assert "passed" in verdicts
