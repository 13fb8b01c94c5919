"""Java tests in one JVM per revision judge exactly as a fresh JVM per test.

Every program is judged twice with real javac, JVMs, checkers and bwrap: ``java_tests:
fresh_jvm`` (the reference path) and ``one_jvm``; verdicts, counts and per-test verdicts must
agree. Each case also says how many tests the runner keeps (normal endings) before it hands the
rest to fresh JVMs (exit codes, exceptions, loops, leftover threads, output after exit...), so a
runner that silently fell back on everything would fail here. ``RUNNER_ATTACKS`` are programs
that know the runner's source: a helper thread that hides from the leftover check, a finalizer,
a forged report line, a watchdog killed by a full heap while a helper works outside the timed
window, state left on the main thread for a later test.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from bench.naive import reference_revision
from linteval_ray.config import JavaTests
from linteval_ray.config import TestLimits as Limits  # aliased: pytest would collect Test*
from linteval_ray.schema.bundled import bundled_path
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
from linteval_ray.validate.judge.java_runner import OUTPUT_DIR, fits_one_jvm, hidden_cpu, read_report, run_in_one_jvm
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
ALL = -1  # every test of the problem
# name -> (code, how many tests the runner keeps: ALL, or a count)
CASES: dict[str, tuple[str, int]] = {
    "plain": (solving(ANSWER), ALL),
    "static_state": (solving(f"calls++; if (calls > 1) System.out.println(calls); {ANSWER}",
                             members="static int calls;"), ALL),
    "exit_zero_after_flush": (solving("""
        PrintWriter out = new PrintWriter(System.out);
        out.println(answer(new Scanner(System.in)));
        out.flush();
        System.exit(0);"""), ALL),
    "exit_zero_loses_the_buffer": (solving("""
        PrintWriter out = new PrintWriter(System.out);
        out.println(answer(new Scanner(System.in)));
        System.exit(0);"""), ALL),
    "print_then_write_a_byte": (solving("System.out.print(answer(new Scanner(System.in))); System.out.write('\\n');"),
                                ALL),
    # Threads with the default 64 MiB stack and the usual big-stack idiom for deep recursion fit.
    "thread_with_the_default_stack": (solving(f"new Thread(() -> {{ }}).start(); {ANSWER}"), ALL),
    "solver_thread_with_a_64_mib_stack": (solving(BIG_STACK.format(ANSWER, "1 << 26")), ALL),
    "solver_thread_with_a_256_mib_stack": (solving(BIG_STACK.format(ANSWER, "1 << 28")), ALL),
    "answer_from_a_thread": (solving(WORKER.format(ANSWER) + ".start();"), ALL),
    "exit_zero_from_a_thread": (solving(WORKER.format(f"{ANSWER} System.out.flush(); System.exit(0);")
                                        + ".start(); Thread.sleep(100000);"), 0),
    # The runner's watchdog is no thread of the main group (one more there answered wrong).
    "counts_its_threads": (solving(f'if (Thread.activeCount() > 1) System.out.println("0 0"); else {ANSWER}'), ALL),
    "deep_recursion": (solving(f"if (depth(200000) > 0) {ANSWER}",
                               members="static int depth(int n) { return n == 0 ? 1 : depth(n - 1) + 1; }"), ALL),
    "reads_past_the_input": (solving("""
        Scanner in = new Scanner(System.in);
        String a = answer(in);
        while (in.hasNext()) in.next();
        System.out.println(a);"""), ALL),
    "stderr_noise": (solving(f'for (int i = 0; i < 1000; i++) System.err.println("noise " + i); {ANSWER}'), ALL),
    "german_locale": (solving("""
        Locale.setDefault(Locale.GERMANY);
        Scanner in = new Scanner(System.in);
        int n = in.nextInt(); long s = 0;
        for (int i = 0; i < n; i++) s += in.nextLong();
        System.out.println(s + " " + String.format("%.3f", (double) s / n));"""), ALL),
    "exit_three": (solving(f"{ANSWER} System.exit(3);"), 0),
    "exit_in_try_finally": (solving(f'try {{ {ANSWER} System.exit(0); }} finally {{ System.out.println("x"); }}'),
                            0),
    "catches_its_exit": (solving(f"{ANSWER} try {{ System.exit(0); }} catch (Throwable t) {{ {ANSWER} }}"), 0),
    "exception_after_output": (solving(f'{ANSWER} throw new IllegalStateException("late");'), 0),
    "daemon_thread_left_running": (solving(f"""
        Thread t = {WORKER.format("for (;;) Thread.onSpinWait();")};
        t.setDaemon(true);
        t.start();
        {ANSWER}"""), 0),
    "huge_output": (solving('for (int i = 0; i < 300000; i++) System.out.println("0123456789");'), 0),
    "file_descriptor_out": (solving("""
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out));
        out.println(answer(new Scanner(System.in)));
        out.flush();"""), 0),
    # The judge's watchdog is not the program's: touching it is denied, and the test goes to a fresh JVM.
    "stops_the_watchdog_then_overruns": (solving(f"""
        Thread[] all = new Thread[64];
        int count = Thread.currentThread().getThreadGroup().enumerate(all);
        for (int i = 0; i < count; i++) {{
            if (all[i] != Thread.currentThread()) {{ all[i].interrupt(); }}
        }}
        long until = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < until) {{ Thread.onSpinWait(); }}
        {ANSWER}"""), 0),
}
def attack(body: str, *, members: str = "") -> str:
    """A program of the sum/mean problem that knows the runner: ``body`` runs in main with ``n``,
    ``answer`` (the right line), ``MAIN`` (the JVM's main thread: the runner's, in the runner),
    ``Ghost`` (a daemon thread whose own equals and hashCode claim it is MAIN) and ``spin``."""
    return f"""import java.util.*;
import java.io.*;

public class Main {{
    static final Thread MAIN = Thread.currentThread();
    static class Ghost extends Thread {{
        final Runnable work;
        Ghost(Runnable work) {{ this.work = work; setDaemon(true); }}
        @Override public int hashCode() {{ return MAIN.hashCode(); }}
        @Override public boolean equals(Object other) {{ return true; }}
        @Override public void run() {{ work.run(); }}
    }}
    static long spin(long rounds) {{
        long x = 0;
        for (long i = 0; i < rounds; i++) x = x * 6364136223846793005L + 1442695040888963407L;
        return x;
    }}
    static void nap() {{
        try {{ Thread.sleep(1); }} catch (InterruptedException e) {{ }}
    }}
{members}
    public static void main(String[] args) throws Exception {{
        Scanner in = new Scanner(System.in);
        int n = in.nextInt();
        long s = 0;
        for (int i = 0; i < n; i++) s += in.nextLong();
        String answer = s + " " + ((double) s / n);
{body}
    }}
}}
"""


SLOW_WORK = "spin(4_000_000_000L)"  # several CPU-seconds: past the 1 s limit of every test
# The sum/mean problem's tests have n = 1, 5 and 50. Each attack changed a verdict before the
# runner was fixed (shown in its comment); each must now agree with fresh JVMs.
TLE, PASSED = Verdict.TIME_LIMIT, Verdict.PASSED
# name -> (code, tests the runner keeps, the fresh JVMs' verdict)
RUNNER_ATTACKS: dict[str, tuple[str, int, Verdict]] = {
    # wrong_answer at 002 in one JVM: the first test's helper wrote into the third test's output.
    "helper_writes_into_a_later_test": (attack("""
        if (n == 1) {
            PrintStream mine = System.out;
            new Ghost(() -> {
                Set<PrintStream> seen = Collections.newSetFromMap(new IdentityHashMap<>());
                seen.add(mine);
                while (true) {
                    PrintStream now = System.out;
                    if (seen.add(now) && seen.size() == 4) { now.println("written by an earlier test"); return; }
                    Thread.onSpinWait();
                }
            }).start();
        }
        if (n == 50) { long until = System.nanoTime() + 300_000_000L; while (System.nanoTime() < until) nap(); }
        System.out.println(answer);"""), 0, PASSED),
    # wrong_answer at 001 in one JVM: a finalizer ran on the JVM's finalizer thread during a later test.
    "finalizer_writes_into_a_later_test": (attack("""
        if (n == 1) System.getProperties().put("late", new Late());
        else { System.gc(); Thread.sleep(200); }
        System.out.println(answer);""", members="""
    static class Late {
        @Override protected void finalize() { System.out.println("written on the finalizer thread"); }
    }"""), 0, PASSED),
    # passed in one JVM, time_limit at 001 in fresh ones: a helper held the report stream (so the
    # watchdog could not stop the slow test) and wrote its "done" line.
    "helper_forges_the_report": (attack("""
        if (n == 1) {
            PrintStream mine = System.out;
            new Ghost(() -> {
                PrintStream report;
                while ((report = System.out) == mine) Thread.onSpinWait();
                while (System.out == report) Thread.onSpinWait();
                synchronized (report) {
                    String sha;
                    while ((sha = System.getProperty("sha")) == null) nap();
                    report.println("done 001 0 0 " + sha);
                    report.flush();
                    while (true) nap();
                }
            }).start();
        }
        String line = answer + (n == 5 && SLOW_WORK == 42 ? "!" : "");
        System.out.println(line);
        if (n == 5) System.setProperty("sha", HexFormat.of().formatHex(java.security.MessageDigest
            .getInstance("SHA-256").digest((line + System.lineSeparator()).getBytes())));""".replace(
        "SLOW_WORK", SLOW_WORK)), 0, TLE),
    # passed in one JVM, time_limit at 001 in fresh ones: a full heap killed the watchdog (its stop
    # message could not be allocated), then a helper holding Locale.class did the slow work after
    # main returned, while the runner, its figures taken, waited to restore the default locale.
    "helper_kills_the_watchdog_and_works_outside_the_window": (attack("""
        PrintStream out = System.out;
        if (n == 1) {
            Thread[] all = new Thread[64];
            int count = MAIN.getThreadGroup().enumerate(all, true);
            Thread found = null;  // the watchdog, where the program can see it (no longer in the main group)
            for (int i = 0; i < count; i++) if (all[i].getName().equals("judge-watchdog")) found = all[i];
            Thread watchdog = found;
            new Ghost(() -> {
                synchronized (Locale.class) {
                    while (MAIN.getState() != Thread.State.BLOCKED) Thread.onSpinWait();
                    fillHeap();
                    long until = System.nanoTime() + 5_000_000_000L;
                    while ((watchdog == null || watchdog.isAlive()) && System.nanoTime() < until) spin(1000);
                    hoard = null;
                }
            }).start();
            out.println(answer);
        } else if (n == 5 && System.getSecurityManager() != null) {
            new Ghost(() -> {
                synchronized (Locale.class) {
                    while (MAIN.getState() != Thread.State.BLOCKED) Thread.onSpinWait();
                    out.println(answer + (SLOW_WORK == 42 ? "!" : ""));
                }
            }).start();
            Thread.sleep(50);
        } else {
            out.println(answer + (n == 5 && SLOW_WORK == 42 ? "!" : ""));
        }""".replace("SLOW_WORK", SLOW_WORK), members="""
    static Object[] hoard;
    static void fillHeap() {
        List<Object> keep = new ArrayList<>(1 << 16);
        for (int size = 1 << 20; size >= 8; ) {
            try { keep.add(new long[size]); } catch (OutOfMemoryError e) { size /= 2; }
        }
        hoard = keep.toArray();
    }"""), 0, TLE),
    # wrong_answer at 001 in one JVM: the main thread's uncaught-exception handler and its interrupt
    # flag carried over. Both are restored: every test stays in the runner.
    "state_on_the_main_thread_it_restores": (attack("""
        if (n == 1) { MAIN.setUncaughtExceptionHandler((t, e) -> { }); MAIN.interrupt(); }
        boolean carried = n > 1
            && (MAIN.getUncaughtExceptionHandler() != MAIN.getThreadGroup() || Thread.interrupted());
        System.out.println(carried ? "state from an earlier test" : answer);"""), ALL, PASSED),
    # wrong_answer at 001 in one JVM: the main thread's name and a thread group carried over. The
    # runner does not undo them: the tests after the one that changed them go to fresh JVMs.
    "state_on_the_main_thread_it_does_not_restore": (attack("""
        if (n == 1) { MAIN.setName("carried"); new ThreadGroup("carried"); }
        boolean carried = n > 1 && (MAIN.getName().equals("carried")
            || MAIN.getThreadGroup().enumerate(new ThreadGroup[4], false) > 0);
        System.out.println(carried ? "state from an earlier test" : answer);"""), 1, PASSED),
}
# memory_limit is decided from the kernel's count of the JVM's memory with the JVM's report of a full
# heap; the report alone, with little in use, is a runtime error (name -> code, kept, fresh verdict).
MEMORY_CASES: dict[str, tuple[str, int, Verdict]] = {
    "heap_exhausted": (solving("long[][] hog = new long[1 << 20][]; "
                               "for (int i = 0; ; i++) hog[i] = new long[1 << 20];"), 0, Verdict.MEMORY_LIMIT),
    "says_its_heap_is_exhausted": (solving('System.err.println("Exception in thread \\"main\\" '
                                           'java.lang.OutOfMemoryError: Java heap space"); System.exit(1);'),
                                   0, Verdict.RUNTIME_ERROR),
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


@pytest.mark.parametrize("name", [*CASES, *RUNNER_ATTACKS, *MEMORY_CASES])
def test_a_program_gets_the_same_verdicts_in_one_jvm_as_in_fresh_jvms(
    name: str, prepared: Callable[[Language], PreparedProblem], ctx: JudgeContext
) -> None:
    if name in CASES:
        code, kept, verdict = *CASES[name], PASSED if name in THREADED else None
    else:
        code, kept, verdict = RUNNER_ATTACKS.get(name) or MEMORY_CASES[name]
    problem = prepared("cpp")
    results = both_paths(code, problem, ctx)
    assert outcome(results["one_jvm"]) == outcome(results["fresh_jvm"]), results["fresh_jvm"].detail
    if verdict is not None:
        assert results["fresh_jvm"].verdict == verdict, results["fresh_jvm"].detail
    assert results["one_jvm"].warm_tests == (len(problem.reference.tests) if kept == ALL else kept)


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
    assert results["one_jvm"].warm_tests == 0  # every one of them ends abnormally


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
    compiled = compile_program("java", code, ctx, out, prebuilt=False)
    assert compiled.program is not None and fits_one_jvm(compiled.program), compiled.error
    tests = [(t, time_limit_s(t, ctx)) for t in problem.reference.tests]
    ran = run_in_one_jvm(compiled.program, tests, problem.tests, ctx)
    assert len(ran) == len(tests)
    assert not [t.name for t in ran if b"REACHED" in t.stdout]
    assert judge_revision("java", code, problem, ctx).verdict == "passed"


def first_failure(result: JudgeResult) -> tuple[object, ...] | None:
    failure = result.first_failure
    return None if failure is None else (failure.test_name, failure.verdict, failure.output_excerpt)


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
        assert first_failure(results["one_jvm"]) == first_failure(results["fresh_jvm"]), record.sample_id
        verdicts.add(results["fresh_jvm"].verdict)
        if results["fresh_jvm"].verdict == "passed":
            assert results["one_jvm"].warm_tests == len(problem.reference.tests), record.sample_id
    assert "passed" in verdicts


def test_a_report_is_kept_only_as_the_runner_ends_it(tmp_path: Path) -> None:
    """"end" or "stop NAME" keep the tests reported done; "abort" (something of the program ran
    outside its test, a runner thread died) or no last line (the runner was killed) keep none."""
    (tmp_path / OUTPUT_DIR).mkdir()
    (tmp_path / OUTPUT_DIR / "0").write_bytes(b"7 7\n")
    done = f"start 90000000\ndone 000 20000000 30000000 {hashlib.sha256(b'7 7' + bytes([10])).hexdigest()}\n"
    names = ["000", "001"]
    stopped = read_report(f"{done}stop 001 exit 3\n".encode(), names, tmp_path)
    assert ([t.name for t in stopped.done], stopped.stopped, stopped.why_not_kept) == (["000"], True, None)
    assert read_report(f"{done}stop 001 exit 3\n".encode(), names[:1], tmp_path).why_not_kept
    ended = read_report(f"{done}end\n".encode(), names[:1], tmp_path)
    assert ([t.name for t in ended.done], ended.stopped, ended.why_not_kept) == (["000"], False, None)
    for broken in (f"{done}abort watchdog died\n", done, done.split("\n", 1)[1] + "end\n"):
        assert read_report(broken.encode(), names, tmp_path).why_not_kept, broken
    # The kernel's count of the box's CPU may exceed the reported start-up and tests by a small bound only.
    assert hidden_cpu(ended, box_cpu_s=0.3, budgets=[0.5]) is None
    assert hidden_cpu(ended, box_cpu_s=1.5, budgets=[0.5])
    assert hidden_cpu(stopped, box_cpu_s=0.8, budgets=[0.5, 0.5]) is None  # the stopped test had its budget
