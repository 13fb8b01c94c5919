"""Every test gets a world of its own, and the box server's worlds judge exactly as bubblewrap's.

Each program is judged twice with real compilers, interpreters, JVMs, checkers and boxes: in boxes
the box server clones (what a run uses as root) and in boxes bubblewrap builds (the reference the
audit holds them against). Verdicts, counts, per-test verdicts and details must agree, and each
case's verdict is asserted. ``CHANNELS`` are programs whose first test (n = 1) leaves state
somewhere a later test looks (n = 5, 50), written from the ways earlier runners were beaten: the
later tests answer wrong when they find it, so they must all pass. ``HONEST`` are idioms of honest
programs that once failed in a box. ``OUT_OF_THE_SCORE`` tried to make its own row an infra error.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import NamedTuple

import pytest

from bench.naive import reference_revision
from linteval_ray.config import TestLimits as Limits  # aliased: pytest would collect Test*
from linteval_ray.schema.bundled import bundled_path
from linteval_ray.schema.record import Language, LintEvalRecord
from linteval_ray.schema.result import Verdict
from linteval_ray.validate.judge import JudgeContext, JudgeResult, PreparedProblem, judge_revision, prepare_problem
from tests.security.corpus import CPP, JAVA, PY, Targets
from tests.validate.judge import problems
from tests.validate.judge.conftest import LIMITS

PASSED, WA, TLE, RE = Verdict.PASSED, Verdict.WRONG_ANSWER, Verdict.TIME_LIMIT, Verdict.RUNTIME_ERROR
ML, OL = Verdict.MEMORY_LIMIT, Verdict.OUTPUT_LIMIT


class Case(NamedTuple):
    language: Language
    code: str
    verdict: Verdict


def cpp(body: str, *, before: str = "") -> str:
    """A C++ program of the sum/mean problem: ``body`` runs in main after ``s`` (sum) and ``n`` are read."""
    return f"""#include <bits/stdc++.h>
#include <csignal>
#include <dirent.h>
#include <fcntl.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
{before}
int main() {{
    int n; std::cin >> n;
    long long s = 0;
    for (int i = 0; i < n; i++) {{ long long a; std::cin >> a; s += a; }}
{body}
}}
"""


def java(body: str, *, members: str = "") -> str:
    """A Java program of the sum/mean problem: ``body`` runs in main; ``answer(in)`` is the right line."""
    return f"""import java.util.*;
import java.io.*;

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


ANSWER = 'printf("%lld %.9f\\n", s, (double)s / n); fflush(stdout);'
JAVA_ANSWER = "System.out.println(answer(new Scanner(System.in)));"
PY_READ = "import os, sys, time\nn = int(input())\na = list(map(int, input().split()))\n"
PY_ANSWER = "print(sum(a), sum(a) / n, flush=True)\n"
SPIN = "for (volatile int k = 0;; k++) {}"
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
DEPTH = "static int depth(int n) { return n == 0 ? 1 : depth(n - 1) + 1; }"
BIG_STACK = 'Thread t = new Thread(null, () -> {{ {} }}, "solver", {}); t.start(); t.join();'

CASES: dict[str, Case] = {
    "plain": Case("cpp", cpp(ANSWER), PASSED),
    "wrong_answer": Case("cpp", cpp('printf("%lld 0\\n", s + 1);'), WA),
    "stderr_noise": Case("cpp", cpp(f'for (int i = 0; i < 1000; i++) fprintf(stderr, "noise %d\\n", i); {ANSWER}'),
                         PASSED),
    "exit_three": Case("cpp", cpp(f"{ANSWER} return 3;"), RE),
    "killed_by_itself": Case("cpp", cpp(f"{ANSWER} raise(SIGKILL);"), RE),
    # The run ends with its first process: a child it left running goes with the box.
    "orphan_left_running": Case("cpp", cpp(f"if (fork() == 0) {{ {SPIN} }} {ANSWER}"), PASSED),
    "stderr_past_the_cap": Case("cpp", cpp(f"{ANSWER} for (int i = 0; i < (3 << 20); i++) fputc(120, stderr);"), OL),
    "spinner": Case("cpp", cpp(SPIN), TLE),
    "spinner_ignoring_sigxcpu": Case("cpp", cpp(f"signal(SIGXCPU, SIG_IGN); {SPIN}"), TLE),
    # Half a second of its own, then a child's second until RLIMIT_CPU: the run's CPU is past the limit.
    "spinning_child_with_a_waiting_parent": Case("cpp", cpp(f"while (clock() < CLOCKS_PER_SEC / 2) {{}} "
                                                            f"if (fork() == 0) {{ {SPIN} }} wait(nullptr); {ANSWER}"),
                                                 TLE),
    # stdout is a pipe: it cannot be sought back over nor read back.
    "seek_back_over_stdout": Case("cpp", cpp('printf("%lld XXXX", s); fflush(stdout); lseek(1, -4, SEEK_CUR); '
                                             'printf(" %.9f\\n", (double)s / n);'), WA),
    "read_own_stdout": Case("cpp", cpp('printf("%lld ", s); fflush(stdout); char c; '
                                       'printf("%.9f\\n", pread(1, &c, 1, 0) == 1 ? 0.5 : (double)s / n);'), PASSED),
    # The box's init forwards a termination signal to the run, as a shell would.
    "kills_its_parent": Case("cpp", cpp(f"kill(getppid(), SIGTERM); sleep(5); {ANSWER}"), RE),
    "py_plain": Case("py3", PY_READ + PY_ANSWER, PASSED),
    "py_exit_three": Case("py3", PY_READ + PY_ANSWER + "sys.exit(3)\n", RE),
    "py_orphan": Case("py3", PY_READ + "if os.fork() == 0:\n    time.sleep(60)\n" + PY_ANSWER, PASSED),
    "py_spinner": Case("py3", PY_READ + "while True:\n    pass\n", TLE),
    # Memory is what the run uses, as the kernel counts it: 1 TiB is refused before any of it is used.
    "py_memory_error": Case("py3", PY_READ + "b = bytearray(1 << 40)\n", RE),
    "py_memory_hog": Case("py3", PY_READ + "b = bytearray(1 << 30)\n", ML),
    # A program's words are not evidence: these print an allocation failure and exit with little in use.
    "says_bad_alloc": Case("cpp", cpp('fputs("terminate called after throwing an instance of \'std::bad_alloc\'\\n", '
                                      'stderr); abort();'), RE),
    "py_says_memory_error": Case("py3", PY_READ + "raise MemoryError\n", RE),
    "java_plain": Case("java", java(JAVA_ANSWER), PASSED),
    "java_exit_three": Case("java", java(f"{JAVA_ANSWER} System.exit(3);"), RE),
    "java_exit_zero_loses_the_buffer": Case("java", java("""
        PrintWriter out = new PrintWriter(System.out);
        out.println(answer(new Scanner(System.in)));
        System.exit(0);"""), WA),
    "java_exception_after_output": Case("java", java(f'{JAVA_ANSWER} throw new IllegalStateException("late");'), RE),
    "java_daemon_thread_left_running": Case("java", java(f"""
        Thread t = new Thread(() -> {{ for (;;) Thread.onSpinWait(); }});
        t.setDaemon(true);
        t.start();
        {JAVA_ANSWER}"""), PASSED),
    "java_huge_output": Case("java", java('for (int i = 0; i < 300000; i++) System.out.println("0123456789");'), OL),
    "java_deep_recursion": Case("java", java(f"if (depth(200000) > 0) {JAVA_ANSWER}", members=DEPTH), PASSED),
    "java_heap_exhausted": Case("java", java("long[][] hog = new long[1 << 20][]; "
                                             "for (int i = 0; ; i++) hog[i] = new long[1 << 20];"), ML),
    "java_says_its_heap_is_exhausted": Case("java", java('System.err.println("Exception in thread \\"main\\" '
                                                         'java.lang.OutOfMemoryError: Java heap space"); '
                                                         "System.exit(1);"), RE),
}

# Idioms of honest programs that failed in a box before: each must pass on every builder.
HONEST: dict[str, Case] = {
    # Threads whose stack glibc reserves at RLIMIT_STACK (the memory limit): memory is what they use.
    "std_thread": Case("cpp", cpp(f"std::thread([&] {{ {ANSWER} }}).join();", before="#include <thread>"), PASSED),
    "pthread_default_attributes": Case("cpp", cpp("n_ = n; pthread_t t; pthread_create(&t, nullptr, solve, &s); "
                                                  "pthread_join(t, nullptr);", before=PTHREAD_SOLVE), PASSED),
    "py_thread": Case("py3", THREADED_PY.format(stack=""), PASSED),
    "py_thread_with_a_big_stack": Case("py3", THREADED_PY.format(stack="threading.stack_size(1 << 27)"), PASSED),
    "java_solver_thread_with_a_256_mib_stack": Case("java", java(BIG_STACK.format(JAVA_ANSWER, "1 << 28")), PASSED),
    # Its stdout is the run's own: reopened (/dev/stdout), its mode changed, as anywhere.
    "py_reopen_stdout": Case("py3", PY_READ + "print(sum(a), end=' ', flush=True)\n"
                                              "open('/dev/stdout', 'w').write(f'{sum(a) / n}\\n')\n", PASSED),
    "cpp_fchmod_and_reopen_stdout": Case("cpp", cpp('fchmod(1, 0644); FILE* out = fopen("/dev/stdout", "w"); '
                                                    'fprintf(out, "%lld %.9f\\n", s, (double)s / n); fclose(out);'),
                                         PASSED),
    "cpp_freopen_stdin": Case("cpp", '#include <cstdio>\nint main() { freopen("/dev/stdin", "r", stdin); '
                              'int n; scanf("%d", &n); long long s = 0, a; '
                              'for (int i = 0; i < n; i++) { scanf("%lld", &a); s += a; } '
                              'printf("%lld %.9f\\n", s, (double)s / n); }\n', PASSED),
    # Its working directory and /tmp are its own to write: a scratch file written, then read back.
    "cpp_scratch_files": Case("cpp", cpp('for (const char* path : {"scratch.txt", "/tmp/scratch.txt"}) { '
                                         'FILE* f = fopen(path, "w"); if (!f) return 1; fprintf(f, "%lld", s); '
                                         'fclose(f); } long long back = 0; FILE* f = fopen("scratch.txt", "r"); '
                                         f'if (fscanf(f, "%lld", &back) != 1 || back != s) return 2; {ANSWER}'),
                              PASSED),
    # A writable /dev/shm: multiprocessing's semaphores live there.
    "py_multiprocessing_pool": Case("py3", PY_READ + "from multiprocessing import Pool\n"
                                    "with Pool(2) as pool:\n    total = sum(pool.map(abs, a)) * 0 + sum(a)\n"
                                    "print(total, total / n)\n", PASSED),
    "sysv_shared_memory": Case("cpp", cpp(f"shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600); {ANSWER}"), PASSED),
    "java_german_locale": Case("java", java("""
        Locale.setDefault(Locale.GERMANY);
        System.out.println(answer(new Scanner(System.in)));"""), PASSED),
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
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/xattr.h>
static sockaddr_in loopback(int port) {
    sockaddr_in a{}; a.sin_family = AF_INET; a.sin_port = htons(port); a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}
static std::string slurp(const char* path) {
    std::ifstream f(path); std::stringstream s; s << f.rdbuf(); return s.str();
}
static long field(const std::string& stat, int index) {  // a field of /proc/PID/stat, 1-based
    std::istringstream in(stat.substr(stat.rfind(')') + 2)); std::string w;
    for (int i = 3; i <= index && in >> w; i++) {}
    return std::stol(w);
}
static unsigned long next_inode(const char* dir) {  // the inode number the next file in ``dir`` gets
    int fd = open(dir, O_TMPFILE | O_RDWR, 0600); struct stat st; fstat(fd, &st); close(fd); return st.st_ino;
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
# Each changed a verdict on a runner that shared one box (or one JVM) between a revision's tests.
CHANNELS: dict[str, Case] = {
    "tcp_time_wait": Case("cpp", carry(TCP_TIME_WAIT, 'slurp("/proc/net/tcp").find(" 06 ") != std::string::npos'),
                          PASSED),
    "udp_packet_counters": Case("cpp", carry(UDP_DATAGRAMS, 'slurp("/proc/net/dev").find("lo:       0") '
                                                            "== std::string::npos"), PASSED),
    "xattr_on_the_work_dir": Case("cpp", carry('setxattr("/box", "user.carry", "7", 1, 0);',
                                               'getxattr("/box", "user.carry", nullptr, 0) > 0'), PASSED),
    "pid_counter": Case("cpp", carry("for (int i = 0; i < 100; i++) if (fork() == 0) _exit(0); else wait(nullptr);",
                                     "getpid() > 50"), PASSED),
    # O_TMPFILE leaves no entry and no directory time, only /tmp's inode counter moved on.
    "tmpfs_inode_counter": Case("cpp", carry('for (int i = 0; i < 1000; i++) next_inode("/tmp");',
                                             'next_inode("/tmp") > 500'), PASSED),
    # The box's pid 1 counts its children's minor page faults (cminflt, field 11 of its stat).
    "init_fault_counter": Case("cpp", carry('if (fork() == 0) { std::vector<char> v(64 << 20, 1); _exit(v[7]); } '
                                            "wait(nullptr);", 'field(slurp("/proc/1/stat"), 11) > 10000'), PASSED),
    "files_left_in_tmp_shm_and_box": Case("cpp", carry(
        'close(open("/tmp/carry", O_CREAT | O_WRONLY, 0600)); close(open("/dev/shm/carry", O_CREAT | O_WRONLY, 0600));'
        ' close(open("carry", O_CREAT | O_WRONLY, 0600));',
        'access("/tmp/carry", F_OK) == 0 || access("/dev/shm/carry", F_OK) == 0 || access("carry", F_OK) == 0'),
        PASSED),
    "sysv_and_abstract_sockets": Case("cpp", carry("""
    shmget(0x7e57, 4096, IPC_CREAT | 0600);
    int s = socket(AF_UNIX, SOCK_STREAM, 0); sockaddr_un a{}; a.sun_family = AF_UNIX;
    memcpy(a.sun_path, "\\0carry", 6); bind(s, (sockaddr*)&a, sizeof a);
    if (fork() == 0) { pause(); }  /* holds the socket: the run ends with its first process */""",
        'shmget(0x7e57, 0, 0) >= 0 || slurp("/proc/net/unix").find("@carry") != std::string::npos'), PASSED),
    # Doors that stay closed: the keyring (a uid's outlives the box), cgroups, /proc/sys.
    "closed_doors": Case("cpp", carry("""
    syscall(SYS_add_key, "user", "carry", "7", 1, -3);  // KEY_SPEC_USER_KEYRING
    mkdir("/sys/fs/cgroup/carry", 0700);
    close(open("/proc/sys/kernel/hostname", O_WRONLY));""",
        'access("/sys/fs/cgroup/carry", F_OK) == 0 || syscall(SYS_request_key, "user", "carry", nullptr, 0) > 0'),
        PASSED),
    # A zone object whose clone() is itself outlived its test in a shared JVM.
    "java_default_time_zone": Case("java", java("""
        if (TimeZone.getDefault().getID().equals("Carry/State")) System.out.println("state from an earlier test");
        else System.out.println(answer(new Scanner(System.in)));
        TimeZone.setDefault(new SimpleTimeZone(0, "Carry/State"));"""), PASSED),
    "java_static_and_system_state": Case("java", java(f"""
        if (System.getProperty("carry") != null || calls++ > 0) System.out.println("state");
        else {JAVA_ANSWER}
        System.setProperty("carry", "1");""", members="static int calls;"), PASSED),
}


def out_of_the_score(language: Language, work: str) -> str:
    """A wrong program whose children fill its memory cgroup with memory no process's RSS shows (memfds
    of 1 MiB, under the test's file size and open file limits), then leaves only small processes
    (``work``): an OOM killer blind to the memfds might pick the box's own processes, and the row would
    be ours to blame."""
    if language == "py3":
        return (PY_READ + "for child in range(4):\n    if os.fork() == 0:\n        keep = []\n"
                "        for i in range(200):\n            fd = os.memfd_create('hoard')\n"
                "            os.write(fd, b'x' * (1 << 20))\n            keep.append(fd)\n        time.sleep(60)\n"
                f"time.sleep(1)\n{work}\n")
    return cpp(f"for (int c = 0; c < 4; c++) if (fork() == 0) {{ std::vector<int> keep; "
               f"std::string chunk(1 << 20, 'x'); for (int i = 0; i < 200; i++) {{ "
               f"int fd = memfd_create(\"hoard\", 0); if (write(fd, chunk.data(), chunk.size()) < 0) break; "
               f"keep.push_back(fd); }} pause(); }}\n"
               f"sleep(1);\n{work}")


OUT_OF_THE_SCORE: dict[str, Case] = {
    "cpp_memfds_then_a_shell": Case("cpp", out_of_the_score("cpp", 'execl("/bin/sh", "sh", "-c", "sleep 5", nullptr); '
                                                                   'puts("0 0");'), ML),
    "py_memfds_then_a_shell": Case("py3", out_of_the_score("py3", "os.execv('/bin/sh', ['sh', '-c', 'sleep 5'])"), ML),
}


def outcome(result: JudgeResult) -> tuple[object, ...]:
    """What both builders must agree on (a compiler's message is not theirs: it can name its own allocations)."""
    return (result.compile_ok, result.verdict, result.tests_generated, result.tests_passed, result.tests_failed,
            result.tests_dropped, result.tests_skipped, [t.verdict for t in result.tests],
            result.detail if result.compile_ok else None)


def both_builders(language: Language, code: str, problem: PreparedProblem, ctx: JudgeContext
                  ) -> tuple[JudgeResult, JudgeResult]:
    """The judgement in the box server's boxes, then in bubblewrap's."""
    assert ctx.has_reference, "the box server needs root, and bubblewrap for the reference"
    return judge_revision(language, code, problem, ctx), judge_revision(language, code, problem, ctx.reference())


@pytest.fixture
def one_job(make_ctx: Callable[..., JudgeContext]) -> JudgeContext:
    return make_ctx(jobs=1)


@pytest.mark.parametrize("name", [*CASES, *HONEST, *CHANNELS, *OUT_OF_THE_SCORE])
def test_a_program_gets_the_same_verdicts_in_every_builders_boxes(
    name: str, prepared: Callable[[Language], PreparedProblem], one_job: JudgeContext
) -> None:
    case = CASES.get(name) or HONEST.get(name) or CHANNELS.get(name) or OUT_OF_THE_SCORE[name]
    problem = prepared("cpp")
    server, bwrap = both_builders(case.language, case.code, problem, one_job)
    assert outcome(server) == outcome(bwrap), (server.detail, bwrap.detail)
    assert server.verdict == case.verdict, server.detail


def test_a_write_end_kept_in_a_sockets_queue_does_not_hold_the_judge(
    prepared: Callable[[Language], PreparedProblem], one_job: JudgeContext
) -> None:
    """stdout's write end sent into a unix socket pair that is then closed: no process holds it, the
    socket garbage does. The output is taken when the run's processes are gone, not at end of file."""
    code = cpp(f"""{ANSWER}
    int pair[2]; socketpair(AF_UNIX, SOCK_DGRAM, 0, pair);
    char byte = 0; iovec io = {{&byte, 1}}; char control[CMSG_SPACE(2 * sizeof(int))] = {{}};
    msghdr msg{{}}; msg.msg_iov = &io; msg.msg_iovlen = 1; msg.msg_control = control;
    msg.msg_controllen = sizeof control; cmsghdr* c = CMSG_FIRSTHDR(&msg); c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS; c->cmsg_len = CMSG_LEN(2 * sizeof(int));
    int fds[2] = {{1, pair[0]}}; memcpy(CMSG_DATA(c), fds, sizeof fds);
    sendmsg(pair[1], &msg, 0); sendmsg(pair[0], &msg, 0);  // each end in the other's queue: a cycle
    close(pair[0]); close(pair[1]);""", before="#include <sys/socket.h>\n#include <sys/uio.h>")
    problem = prepared("cpp")
    for result in both_builders("cpp", code, problem, one_job):
        assert result.verdict == PASSED, result.detail
        # A drain waiting for end of file would wait for the unix garbage collector or the wall cap.
        assert all(t.wall_s < t.time_limit_s for t in result.tests), [t.wall_s for t in result.tests]


def test_a_program_reaches_nothing_of_its_box_or_the_judge(
    prepared: Callable[[Language], PreparedProblem], one_job: JudgeContext
) -> None:
    """It ends normally either way; what it printed says whether any door was open: the box's init
    (signals, its memory, its descriptors), the tests' inputs or answers, the host."""
    attempts = """
    kill(1, SIGKILL);  // pid 1 of a pid namespace gets no signal it has no handler for
    bool reached = open("/proc/1/fd/3", O_WRONLY) >= 0 || open("/proc/1/mem", O_RDONLY) >= 0
        || open("/proc/1/environ", O_RDONLY) >= 0 || access("/tests", F_OK) == 0 || access("/answers", F_OK) == 0;
    if (reached) printf("REACHED\\n"); else { """ + ANSWER + " }"
    problem = prepared("cpp")
    for result in both_builders("cpp", cpp(attempts), problem, one_job):
        assert result.verdict == PASSED, result.detail


TARGETS = Targets(port=9, sentinel_pid=1 << 22, validator_pid=1 << 22, planted_file="/nonexistent/planted",
                  output_file="/nonexistent/out", other_work_file="/nonexistent/work", cache_dir="/nonexistent/cache")
HOSTILE = {f"{case.language}_{case.name}": case for case in CPP + PY + JAVA}
# A cap on each test's wall clock for programs that can only end in a time limit (sleepers, spinners, fork
# bombs): the run's default (4 x 2 s + 5 s, twice when little CPU was used) would cost ~50 s a case for a
# verdict both builders reach either way. Other programs keep the default: a wall cap must not decide them.
TIME_LIMIT_WALL_CAP_S = 3.0


@pytest.mark.slow
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_programs_get_the_same_verdicts_in_every_builders_boxes(
    name: str, make_ctx: Callable[..., JudgeContext]
) -> None:
    case = HOSTILE[name]
    # The run's default 2 s floor: a 64 MiB Java stack overflow takes 0.4-1.5 CPU-s (page faults), so
    # the tests' 1 s floor would judge it by the host's load.
    ctx = make_ctx(jobs=1, limits=LIMITS.model_copy(update={"time_floor_s": Limits().time_floor_s}))
    if case.verdicts == {Verdict.TIME_LIMIT}:
        ctx = dataclasses.replace(ctx, wall_cap_s=TIME_LIMIT_WALL_CAP_S)
    problem = prepare_problem(problems.record(case.language), ctx)
    server, bwrap = both_builders(case.language, TARGETS.fill(case.code), problem, ctx)
    assert outcome(server) == outcome(bwrap), (server.detail, bwrap.detail)
    assert server.verdict != PASSED


def first_failure(result: JudgeResult) -> dict[str, object] | None:
    timing = {"wall_s", "cpu_s", "memory_mb", "evidence"}  # the host's figures, not the program's
    return result.first_failure.model_dump(exclude=timing) if result.first_failure else None


# A bundled sample of each language and verdict its tests give (passed, wrong_answer, time_limit).
BUNDLED = ("lr01_cpp_0", "lr01_cpp_1", "lr05_cpp_0", "lr01_java_0", "lr03_java_1", "lr01_py3_0", "lr03_py3_0",
           "lr04_py3_0")


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_bundled_samples_get_the_same_verdicts_counts_and_first_failures_in_every_builders_boxes(
    make_ctx: Callable[..., JudgeContext],
) -> None:
    ctx = make_ctx(limits=Limits(), jobs=1)  # the defaults a run uses
    verdicts = set()
    records = [LintEvalRecord.model_validate_json(line) for line in bundled_path().read_text().splitlines()]
    for record in (r for r in records if r.sample_id in BUNDLED):
        problem = prepare_problem(record, ctx)
        server, bwrap = both_builders(record.language, reference_revision(record) or "", problem, ctx)
        assert outcome(server) == outcome(bwrap), record.sample_id
        assert first_failure(server) == first_failure(bwrap), record.sample_id
        verdicts.add((record.language, server.verdict))
    assert verdicts == {("cpp", PASSED), ("cpp", WA), ("cpp", TLE), ("java", PASSED), ("java", WA), ("py3", PASSED),
                        ("py3", WA), ("py3", TLE)}
