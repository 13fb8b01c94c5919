"""C++ and Python tests in one box per revision judge exactly as a box per test.

Every program is judged twice with real compilers, interpreters, checkers and bwrap:
``native_tests: fresh_box`` (the reference path) and ``one_box``; verdicts, counts and per-test
verdicts must agree, with one job (a validation actor's: with more, the box-per-test path may
start a test after the one that ran out of time, by the host's timing). Each case also says how
many tests the runner keeps (normal endings) and whether it hands back a run that ran out of CPU
time, so a runner that silently fell back on everything would fail here.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest

from bench.naive import reference_revision
from linteval_ray.config import NativeTests
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
from linteval_ray.validate.judge.limits import time_limit_s
from linteval_ray.validate.judge.native_runner import fits_one_box, run_in_one_box
from linteval_ray.validate.judge.warm import WarmRun
from linteval_ray.validate.sandbox import SandboxError, make_sandbox
from linteval_ray.validate.sandbox.base import RunLimits
from tests.security.corpus import CPP, PY, Targets
from tests.validate.judge import problems

ALL = -1  # every test of the problem
TIMING = {"wall_s", "cpu_s", "memory_mb", "evidence"}  # of a first failure: the host's, not the program's


class Case(NamedTuple):
    language: Language
    code: str
    kept: int  # tests the runner keeps: ALL, or a count
    scored_there: bool = False  # the next test ran out of time in the runner and was scored from that run
    verdict: Verdict = Verdict.PASSED


def cpp(body: str, *, before: str = "") -> str:
    """A C++ program of the sum/mean problem: ``body`` runs in main after ``s`` (sum) and ``n`` are read."""
    return f"""#include <bits/stdc++.h>
#include <csignal>
#include <dirent.h>
#include <fcntl.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <unistd.h>
{before}
int main() {{
    int n; std::cin >> n;
    long long s = 0;
    for (int i = 0; i < n; i++) {{ long long a; std::cin >> a; s += a; }}
{body}
}}
"""


ANSWER = 'printf("%lld %.9f\\n", s, (double)s / n); fflush(stdout);'
PTHREAD_SOLVE = """#include <pthread.h>
static int n_;
static void* solve(void* sum) {
    long long s = *(long long*)sum;
    volatile char scratch[1 << 20] = {1};  // a MiB of the thread's own stack
    printf("%lld %.9f\\n", s + scratch[0] - 1, (double)s / n_); fflush(stdout);
    return nullptr;
}
"""
# main on a thread, deep recursion (the competitive-programming idiom), with and without stack_size.
THREADED_PY = """import sys, threading
def total(a, i):
    return 0 if i == len(a) else a[i] + total(a, i + 1)
def main():
    n = int(input())
    a = list(map(int, input().split()))
    print(total(a, 0), sum(a) / n)
sys.setrecursionlimit(10000)
{stack}
threading.Thread(target=main).start()
"""
PY_READ = "import os, sys, time\nn = int(input())\na = list(map(int, input().split()))\n"
PY_ANSWER = "print(sum(a), sum(a) / n, flush=True)\n"
SPIN = "for (volatile int k = 0;; k++) {}"
# The sum/mean problem's inputs start with n: 1 and 5 in its two smallest tests.
CASES: dict[str, Case] = {
    "plain": Case("cpp", cpp(ANSWER), ALL),
    "wrong_answer": Case("cpp", cpp('printf("%lld 0\\n", s + 1);'), ALL, verdict=Verdict.WRONG_ANSWER),
    "stderr_noise": Case("cpp", cpp(f'for (int i = 0; i < 1000; i++) fprintf(stderr, "noise %d\\n", i); {ANSWER}'),
                         ALL),
    # A file made and removed again leaves /tmp's times changed: a later test could read them.
    "scratch_file_removed": Case("cpp", cpp(f'FILE* f = fopen("/tmp/scratch", "w"); fputs("x", f); fclose(f); '
                                            f'unlink("/tmp/scratch"); {ANSWER}'), 0),
    # Near the output cap on every test, passed (the checker ignores trailing spaces): two fit the budget.
    "large_outputs": Case("cpp", cpp(f'{ANSWER} for (int i = 0; i < 700 * 1024; i++) putchar(32);'), 2),
    "exit_three": Case("cpp", cpp(f"{ANSWER} return 3;"), 0, verdict=Verdict.RUNTIME_ERROR),
    "killed_by_itself": Case("cpp", cpp(f"{ANSWER} raise(SIGKILL);"), 0, verdict=Verdict.RUNTIME_ERROR),
    "orphan_left_running": Case("cpp", cpp(f"if (fork() == 0) {{ {SPIN} }} {ANSWER}"), 0),
    "file_left_in_tmp": Case("cpp", cpp(f'FILE* f = fopen("/tmp/left", "a"); fputs("x", f); fclose(f); {ANSWER}'), 0),
    "file_left_in_the_work_dir": Case("cpp", cpp(f'FILE* f = fopen("left", "a"); fputs("x", f); fclose(f); {ANSWER}'),
                                      0),
    "sysv_shared_memory": Case("cpp", cpp(f"shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600); {ANSWER}"), 0),
    "stderr_past_the_cap": Case("cpp", cpp(f"{ANSWER} for (int i = 0; i < (3 << 20); i++) fputc(120, stderr);"), 0,
                                verdict=Verdict.OUTPUT_LIMIT),
    "spinner": Case("cpp", cpp(SPIN), 0, scored_there=True, verdict=Verdict.TIME_LIMIT),
    "spinner_ignoring_sigxcpu": Case("cpp", cpp(f"signal(SIGXCPU, SIG_IGN); {SPIN}"), 0, scored_there=True,
                                     verdict=Verdict.TIME_LIMIT),
    "spins_from_n_2_on": Case("cpp", cpp(f"if (n > 1) {{ {SPIN} }} {ANSWER}"), 1, scored_there=True,
                              verdict=Verdict.TIME_LIMIT),
    # Half a second of its own, then a child's second until RLIMIT_CPU: the run's CPU is past the limit.
    "spinning_child_with_a_waiting_parent": Case("cpp", cpp(f"while (clock() < CLOCKS_PER_SEC / 2) {{}} "
                                                            f"if (fork() == 0) {{ {SPIN} }} wait(nullptr); {ANSWER}",
                                                            before="#include <sys/wait.h>"), 0,
                                                 verdict=Verdict.TIME_LIMIT),
    # stdout is a pipe, as in a box of its own (it was a memfd: a program could seek back over its
    # output, read it, or reopen it through /proc/self/fd, and each changed a verdict).
    "seek_back_over_stdout": Case("cpp", cpp('printf("%lld XXXX", s); fflush(stdout); lseek(1, -4, SEEK_CUR); '
                                             'printf(" %.9f\\n", (double)s / n);'), ALL, verdict=Verdict.WRONG_ANSWER),
    "read_own_stdout": Case("cpp", cpp('printf("%lld ", s); fflush(stdout); char c; '
                                       'printf("%.9f\\n", pread(1, &c, 1, 0) == 1 ? 0.5 : (double)s / n);'), ALL),
    "py_reopen_stdout": Case("py3", PY_READ + "print(sum(a), end=' ', flush=True)\n"
                                              "open('/dev/stdout', 'w').write(f'{sum(a) / n}\\n')\n", 0,
                             verdict=Verdict.RUNTIME_ERROR),
    "py_plain": Case("py3", PY_READ + PY_ANSWER, ALL),
    "py_exit_three": Case("py3", PY_READ + PY_ANSWER + "sys.exit(3)\n", 0, verdict=Verdict.RUNTIME_ERROR),
    "py_orphan": Case("py3", PY_READ + "if os.fork() == 0:\n    time.sleep(60)\n" + PY_ANSWER, 0),
    "py_file_left": Case("py3", PY_READ + "open('/tmp/left', 'a').write('x')\n" + PY_ANSWER, 0),
    "py_spinner": Case("py3", PY_READ + "while True:\n    pass\n", 0, scored_there=True, verdict=Verdict.TIME_LIMIT),
    # Memory is what the run uses, as the kernel counts it: 1 TiB is refused before any of it is used.
    "py_memory_error": Case("py3", PY_READ + "b = bytearray(1 << 40)\n", 0, verdict=Verdict.RUNTIME_ERROR),
    "py_memory_hog": Case("py3", PY_READ + "b = bytearray(1 << 30)\n", 0, verdict=Verdict.MEMORY_LIMIT),
    # A program's words are not evidence: these print an allocation failure and exit with little in use.
    "says_bad_alloc": Case("cpp", cpp('fputs("terminate called after throwing an instance of \'std::bad_alloc\'\\n", '
                                      'stderr); abort();'), 0, verdict=Verdict.RUNTIME_ERROR),
    "py_says_memory_error": Case("py3", PY_READ + "raise MemoryError\n", 0, verdict=Verdict.RUNTIME_ERROR),
    # Honest programs that compute on a thread with default attributes (glibc reserves its stack at
    # RLIMIT_STACK, the memory limit): they pass, in a box of their own (their threads use pids).
    "std_thread": Case("cpp", cpp(f"std::thread([&] {{ {ANSWER} }}).join();", before="#include <thread>"), 0),
    "pthread_default_attributes": Case("cpp", cpp("n_ = n; pthread_t t; pthread_create(&t, nullptr, solve, &s); "
                                                  "pthread_join(t, nullptr);", before=PTHREAD_SOLVE), 0),
    "py_thread": Case("py3", THREADED_PY.format(stack=""), 0),
    "py_thread_with_a_big_stack": Case("py3", THREADED_PY.format(stack="threading.stack_size(1 << 27)"), 0),
}
def carry(first: str, seen: str, *, before: str = "") -> str:
    """A C++ program that tries to leave state for a later test: its first test (n = 1) runs ``first``,
    a later one prints a wrong answer when ``seen`` (an expression) finds that state."""
    return cpp(f"if (n == 1) {{ {first} }}\n"
               f'    if (n > 1 && ({seen})) {{ puts("state from an earlier test"); return 0; }}\n    {ANSWER}',
               before=CHANNEL_INCLUDES + before)


CHANNEL_INCLUDES = """#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
static sockaddr_in loopback(int port) {
    sockaddr_in a{}; a.sin_family = AF_INET; a.sin_port = htons(port); a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}
static std::string slurp(const char* path) {
    std::ifstream f(path); std::stringstream s; s << f.rdbuf(); return s.str();
}
"""
TCP_TIME_WAIT = """
    int l = socket(AF_INET, SOCK_STREAM, 0); sockaddr_in a = loopback(0); socklen_t len = sizeof a;
    bind(l, (sockaddr*)&a, sizeof a); listen(l, 1); getsockname(l, (sockaddr*)&a, &len);
    int c = socket(AF_INET, SOCK_STREAM, 0); connect(c, (sockaddr*)&a, sizeof a);
    int peer = accept(l, nullptr, nullptr);
    close(c);  // who closes first keeps the connection in TIME_WAIT for a minute
    char b; read(peer, &b, 1); close(peer); close(l);
"""
UDP_DATAGRAMS = """
    int u = socket(AF_INET, SOCK_DGRAM, 0); sockaddr_in a = loopback(9);
    for (int i = 0; i < 7; i++) sendto(u, "x", 1, 0, (sockaddr*)&a, sizeof a);  // 7 packets on lo's counters
"""
# Each way a test could leave state a later test reads, in one box: the runner must not keep the test
# that left it (or, for what cannot be left at all, must keep every test). All but the last changed a
# verdict before the runner looked for them (checked: wrong_answer in one box, passed a box each).
CHANNELS: dict[str, Case] = {
    "tcp_time_wait": Case("cpp", carry(TCP_TIME_WAIT, 'slurp("/proc/net/tcp").find(" 06 ") != std::string::npos'),
                          0),
    "udp_packet_counters": Case("cpp", carry(UDP_DATAGRAMS,
                                             'slurp("/proc/net/dev").find("lo:       0") == std::string::npos'), 0),
    "xattr_on_the_work_dir": Case("cpp", carry('setxattr("/box", "user.carry", "7", 1, 0);',
                                               'getxattr("/box", "user.carry", nullptr, 0) > 0'), 0),
    "tmp_dir_times": Case("cpp", carry('usleep(100000); close(open("/tmp/x", O_CREAT | O_WRONLY, 0600)); '
                                       'unlink("/tmp/x");', "tmp_modified_later()", before="""
static bool tmp_modified_later() {  // /tmp changed well after the box's root was made
    struct stat t, r; stat("/tmp", &t); stat("/", &r);
    return (t.st_mtim.tv_sec - r.st_mtim.tv_sec) + (t.st_mtim.tv_nsec - r.st_mtim.tv_nsec) / 1e9 > 0.05;
}"""), 0),
    "pid_counter": Case("cpp", carry("for (int i = 0; i < 100; i++) if (fork() == 0) _exit(0); else wait(nullptr);",
                                     "getpid() > 50"), 0),
    "other_tests_inputs": Case("cpp", carry("", 'opendir("/inputs") != nullptr'), ALL),
    # Doors that were closed already: SysV IPC kills the test (it runs again in a box of its own); the
    # keyring, /dev/shm, cgroups, /proc/sys and /tmp's extended attributes are refused, an abstract
    # socket goes with its process.
    "closed_doors": Case("cpp", carry("""
    syscall(SYS_add_key, "user", "carry", "7", 1, -3);  // KEY_SPEC_USER_KEYRING
    close(open("/dev/shm/carry", O_CREAT | O_WRONLY, 0600));
    mkdir("/sys/fs/cgroup/carry", 0700);
    close(open("/proc/sys/kernel/hostname", O_WRONLY));
    setxattr("/tmp", "user.carry", "7", 1, 0);
    int s = socket(AF_UNIX, SOCK_STREAM, 0); sockaddr_un a{}; a.sun_family = AF_UNIX;
    memcpy(a.sun_path, "\\0carry", 6); bind(s, (sockaddr*)&a, sizeof a);""",
        'access("/dev/shm/carry", F_OK) == 0 || access("/sys/fs/cgroup/carry", F_OK) == 0 '
        '|| getxattr("/tmp", "user.carry", nullptr, 0) > 0 '
        '|| syscall(SYS_request_key, "user", "carry", nullptr, 0) > 0 '
        '|| slurp("/proc/net/unix").find("@carry") != std::string::npos',
        before="#include <sys/syscall.h>\n#include <sys/un.h>\n"), ALL),
}
TARGETS = Targets(port=9, sentinel_pid=1 << 22, validator_pid=1 << 22, planted_file="/nonexistent/planted",
                  output_file="/nonexistent/out", other_work_file="/nonexistent/work", cache_dir="/nonexistent/cache")
# Both sleepers meet the wall cap, which the runner hands back to a box of its own: one is enough (~30 s).
HOSTILE = {f"{case.language}_{case.name}": (case.language, TARGETS.fill(case.code)) for case in CPP + PY
           if case.name != "closes_stdout_and_keeps_running"}
# Their first test meets its wall-clock cap: a time limit the box-per-test path runs twice to count.
WALL_CAPPED = {"cpp_fork_bomb", "cpp_sleep_forever", "py3_fork_bomb"}


def outcome(result: JudgeResult) -> tuple[object, ...]:
    """What both paths must agree on (a compiler's message is not theirs: it can name its own allocations)."""
    return (result.compile_ok, result.verdict, result.tests_generated, result.tests_passed, result.tests_failed,
            result.tests_dropped, result.tests_skipped, [t.verdict for t in result.tests],
            result.detail if result.compile_ok else None)


def both_paths(language: Language, code: str, problem: PreparedProblem, ctx: JudgeContext
               ) -> dict[NativeTests, tuple[JudgeResult, int]]:
    """Each path's result, and how many sandboxed runs it took."""
    results = {}
    for mode in ("fresh_box", "one_box"):
        ctx.native_tests = mode
        before = ctx.sandbox_runs
        results[mode] = judge_revision(language, code, problem, ctx), ctx.sandbox_runs - before
    return results


def in_one_box(language: Language, code: str, problem: PreparedProblem, ctx: JudgeContext) -> WarmRun:
    """What the one-box runner itself judged."""
    out = Path(tempfile.mkdtemp(dir=ctx.scratch)) / "prog"
    compiled = compile_program(language, code, ctx, out)
    assert compiled.program is not None, compiled.error
    assert fits_one_box(compiled.program, ctx)
    tests = [(t, time_limit_s(t, ctx)) for t in problem.reference.tests]
    return run_in_one_box(compiled.program, tests, problem.tests, ctx)


@pytest.fixture
def one_job(make_ctx: Callable[..., JudgeContext]) -> JudgeContext:
    return make_ctx(jobs=1)


@pytest.mark.parametrize("name", [*CASES, *CHANNELS])
def test_a_program_gets_the_same_verdicts_in_one_box_as_in_a_box_per_test(
    name: str, prepared: Callable[[Language], PreparedProblem], one_job: JudgeContext
) -> None:
    case = CASES.get(name) or CHANNELS[name]
    problem = prepared(case.language)
    (fresh, fresh_runs), (one_box, one_box_runs) = both_paths(case.language, case.code, problem, one_job).values()
    assert outcome(one_box) == outcome(fresh), fresh.detail
    assert fresh.verdict == case.verdict, fresh.detail
    kept = len(problem.reference.tests) if case.kept == ALL else case.kept
    # The kept tests, and the one the runner stopped at when its time limit was scored from the runner's run.
    assert one_box.warm_tests == kept + case.scored_there
    # One run of the runner instead of one per kept test, and one for the test it stopped at if scored there.
    assert fresh_runs - one_box_runs == (kept if case.scored_there else kept - 1)


def test_a_program_in_the_box_reaches_nothing_of_the_runner(
    prepared: Callable[[Language], PreparedProblem], one_job: JudgeContext
) -> None:
    """It ends normally either way; what it printed says whether any door was open: the runner's
    report (its stdout) through /proc, a signal to it, its memory, or another test's input."""
    attempts = """
    kill(1, SIGKILL);  // pid 1 of a pid namespace gets no signal it has no handler for
    kill(1, SIGTERM);
    bool reached = open("/proc/1/fd/1", O_WRONLY) >= 0 || open("/proc/1/mem", O_RDONLY) >= 0
        || open("/proc/1/environ", O_RDONLY) >= 0;
    for (const char* dir : {"/inputs", "/proc/self/root/inputs", "/proc/1/root/inputs"}) {  // the other inputs
        if (DIR* d = opendir(dir)) {
            while (dirent* e = readdir(d)) {
                std::string path = std::string(dir) + "/" + e->d_name;
                if (e->d_name[0] != '.' && open(path.c_str(), O_RDONLY) >= 0) reached = true;
            }
            closedir(d);
        }
    }
    if (reached) printf("REACHED\\n"); else { """ + ANSWER + " }"
    problem = prepared("cpp")
    ran = in_one_box("cpp", cpp(attempts), problem, one_job)
    assert len(ran.kept) == len(problem.reference.tests)
    assert not [t.name for t in ran.kept if b"REACHED" in t.stdout]
    assert judge_revision("cpp", cpp(attempts), problem, one_job).verdict == Verdict.PASSED


def test_a_sandbox_without_a_pid_namespace_refuses_a_run_as_its_pid_1(ctx: JudgeContext) -> None:
    """As any pid but 1 its kill(-1) would reach every process of the uid: rlimits has no pid namespace."""
    sandbox = make_sandbox("rlimits", allow_unsafe=True)
    assert not sandbox.pid_namespace
    with pytest.raises(SandboxError, match="pid 1"):
        sandbox.run(["/bin/true"], workdir=ctx.scratch, limits=RunLimits(wall_s=5), as_pid1=True)


@pytest.mark.slow
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_programs_get_the_same_verdicts_in_one_box(
    name: str, make_ctx: Callable[..., JudgeContext]
) -> None:
    language, code = HOSTILE[name]
    ctx = make_ctx(jobs=1)
    problem = prepare_problem(problems.record(language), ctx)
    (fresh, fresh_runs), (one_box, one_box_runs) = both_paths(language, code, problem, ctx).values()
    assert outcome(one_box) == outcome(fresh), fresh.detail
    if name in WALL_CAPPED:
        # The runner's run is the first of the two: one box of its own decides, not two more.
        assert fresh.verdict == Verdict.TIME_LIMIT and one_box.warm_tests == 0
        assert (fresh_runs, one_box_runs) == (2, 2)


def first_failure(result: JudgeResult) -> dict[str, object] | None:
    return result.first_failure.model_dump(exclude=TIMING) if result.first_failure else None


def bundled_native() -> list[LintEvalRecord]:
    records = [LintEvalRecord.model_validate_json(line) for line in bundled_path().read_text().splitlines()]
    return [r for r in records if r.language in ("cpp", "py3")]


@pytest.mark.slow
@pytest.mark.timeout(3600)  # 10 problems: 30 testlib compiles in a cold session cache
def test_bundled_samples_get_the_same_verdicts_and_counts_in_one_box(make_ctx: Callable[..., JudgeContext]) -> None:
    ctx = make_ctx(limits=Limits(), jobs=1)  # the defaults a run uses
    verdicts = set()
    for record in bundled_native():
        problem = prepare_problem(record, ctx)
        code = reference_revision(record) or ""
        (fresh, _), (one_box, _) = both_paths(record.language, code, problem, ctx).values()
        assert outcome(one_box) == outcome(fresh), record.sample_id
        assert first_failure(one_box) == first_failure(fresh), record.sample_id
        verdicts.add(fresh.verdict)
    assert {Verdict.PASSED, Verdict.WRONG_ANSWER, Verdict.TIME_LIMIT} <= verdicts
