"""Hostile revisions: programs a model could emit to escape, exhaust or spy on the evaluator.

Each case is a revision of a bundled problem (``lr01``: prefix sums, 10 tests) and the
verdict class it must get. Placeholders ``@NAME@`` are filled per test session with host
facts the program tries to abuse (``Targets``): a loopback port with a listener, the pid of
a process it must not kill, files it must neither read nor change.
"""

from __future__ import annotations

from dataclasses import dataclass

from linteval_ray.schema import Verdict


@dataclass(frozen=True)
class Targets:
    """Host things a hostile program aims at (the test checks they are untouched)."""

    port: int  # a loopback listener opened by the test
    sentinel_pid: int  # a host process that must survive
    validator_pid: int  # the evaluating process
    planted_file: str  # holds a secret; must stay unread and intact
    output_file: str  # a result file in "the run's output folder"
    other_work_file: str  # a file in another sample's work dir (the validator's scratch)
    cache_dir: str  # the content cache: reference answers live here

    def fill(self, code: str) -> str:
        for name, value in vars(self).items():
            code = code.replace(f"@{name.upper()}@", str(value))
        return code


@dataclass(frozen=True)
class Case:
    name: str
    language: str
    code: str
    verdicts: frozenset[Verdict]
    note: str = ""


def case(name: str, language: str, code: str, *verdicts: Verdict, note: str = "") -> Case:
    return Case(name, language, code, frozenset(verdicts), note)


TLE, MLE, RE, OLE, WA, CE = (Verdict.TIME_LIMIT, Verdict.MEMORY_LIMIT, Verdict.RUNTIME_ERROR,
                             Verdict.OUTPUT_LIMIT, Verdict.WRONG_ANSWER, Verdict.COMPILE_ERROR)

# -- C++ ------------------------------------------------------------------------------------------

CPP = [
    case("fork_bomb", "cpp", "#include <unistd.h>\nint main() { for (;;) fork(); }\n", TLE),
    case("thread_bomb", "cpp", r"""
#include <chrono>
#include <thread>
int main() {
    for (;;) std::thread([] { for (;;) std::this_thread::sleep_for(std::chrono::seconds(1)); }).detach();
}
""", RE, MLE, note="std::system_error once threads cannot be created"),
    case("memory_hog", "cpp", r"""
#include <vector>
int main() {
    std::vector<std::vector<char>> hog;
    for (;;) hog.emplace_back(1 << 20, 1);
}
""", MLE),
    case("stack_overflow", "cpp", r"""
int deep(int x) { volatile char pad[4096]; pad[0] = (char)x; return deep(x + 1) + pad[0]; }
int main() { return deep(0); }
""", RE, MLE, note="SIGSEGV; flagged memory when the stack reached the address-space limit"),
    case("infinite_loop", "cpp", "int main() { volatile unsigned long x = 0; for (;;) x++; }\n", TLE),
    case("sleep_forever", "cpp", "#include <unistd.h>\nint main() { for (;;) sleep(1000); }\n", TLE),
    case("ten_gb_of_output", "cpp", r"""
#include <cstdio>
#include <cstring>
int main() {
    static char line[1 << 16];
    memset(line, '7', sizeof line);
    for (size_t i = 63; i < sizeof line; i += 64) line[i] = '\n';
    for (long long written = 0; written < 10LL << 30; written += sizeof line) fwrite(line, 1, sizeof line, stdout);
}
""", OLE),
    case("huge_single_line", "cpp", "#include <cstdio>\nint main() { for (;;) putchar('9'); }\n", OLE),
    case("huge_file", "cpp", r"""
#include <cstdio>
int main() {
    static char block[1 << 20];
    FILE* f = fopen("huge.bin", "wb");
    for (int i = 0; i < 10240; i++) fwrite(block, 1, sizeof block, f);
    fclose(f);
}
""", RE, note="RLIMIT_FSIZE: SIGXFSZ"),
    case("binary_garbage_on_stdout", "cpp", r"""
#include <cstdio>
int main() { for (int r = 0; r < 200; r++) for (int c = 0; c < 256; c++) putchar(c); }
""", WA),
    case("closes_stdout_and_keeps_running", "cpp", r"""
#include <unistd.h>
int main() { close(1); close(2); for (;;) sleep(1); }
""", TLE),
    case("kill_everything", "cpp", r"""
#include <csignal>
#include <unistd.h>
int main() {
    kill(-1, SIGKILL);
    kill(getppid(), SIGKILL);
    kill(@SENTINEL_PID@, SIGKILL);
    kill(@VALIDATOR_PID@, SIGKILL);
    return 1;
}
""", RE),
    case("setuid_root", "cpp", r"""
#include <cstdio>
#include <unistd.h>
int main() {
    if (setuid(0) == 0 || seteuid(0) == 0) { puts("became root"); return 0; }
    perror("setuid");
    execl("/usr/bin/su", "su", "-c", "id", (char*)nullptr);  // setuid binary: no_new_privs
    perror("su");
    return 1;
}
""", RE),
    case("template_recursion_bomb", "cpp", r"""
template <int N> struct Boom { static const int value = Boom<N + 1>::value + Boom<N + 2>::value; };
int main() { return Boom<0>::value; }
""", CE),
    case("include_dev_zero", "cpp", '#include "/dev/zero"\nint main() {}\n', CE),
    case("include_etc_shadow", "cpp", '#include "/etc/shadow"\nint main() {}\n', CE),
    case("embed_etc_shadow_in_a_diagnostic", "cpp", r"""
#include <string_view>
constexpr char data[] = {
#embed "/etc/shadow"
, 0};
static_assert(false, std::string_view(data, 64));
int main() {}
""", CE, note="clang-tidy would quote the file in its static_assert message if it could read it"),
    case("non_utf8_source", "cpp", "int main() { /* \udcff\udcfe latin-1: \udce9 */ return 0; }\n", CE, WA,
         note="undecodable bytes (lone surrogates, as JSON '\\udcff' escapes decode) in the revision: "
              "judged as U+FFFD, and the row still serializes"),
]

# -- Python ---------------------------------------------------------------------------------------

PY = [
    case("fork_bomb", "py3", """\
import os
while True:
    try:
        os.fork()
    except OSError:
        pass
""", TLE),
    case("thread_bomb", "py3", """\
import threading, time
while True:
    threading.Thread(target=time.sleep, args=(1000,), daemon=True).start()
""", RE, MLE),
    case("memory_hog", "py3", "hog = []\nwhile True:\n    hog.append(bytearray(1 << 20))\n", MLE),
    case("stack_overflow", "py3", """\
import sys
sys.setrecursionlimit(10 ** 9)
def deep(n):
    return eval("deep(n + 1)") + 1  # through C: pure-Python calls would grow the heap, not the stack
deep(0)
""", RE, MLE),
    case("network_loopback_listener", "py3", """\
import socket, sys
s = socket.create_connection(("127.0.0.1", @PORT@), timeout=2)
s.sendall(b"exfiltrated")
print("connected")
""", RE),
    case("network_outside", "py3", """\
import socket
socket.create_connection(("1.1.1.1", 80), timeout=2).sendall(b"GET / HTTP/1.0\\r\\n\\r\\n")
print("connected")
""", RE),
    case("dns_lookup", "py3", "import socket\nprint(socket.getaddrinfo('pypi.org', 443))\n", RE),
    case("read_host_environment", "py3", """\
import os, sys
dump = repr(dict(os.environ))
for path in ("/proc/self/environ", "/proc/1/environ", "/proc/@VALIDATOR_PID@/environ"):
    try:
        dump += open(path, "rb").read().decode(errors="replace")
    except OSError as e:
        dump += repr(e)
print(dump)
sys.exit(dump)
""", RE),
    case("read_etc_shadow", "py3", "import sys\nsys.exit(open('/etc/shadow').read())\n", RE),
    case("read_host_files", "py3", """\
import os, sys
found = []
for path in ("@PLANTED_FILE@", "@OUTPUT_FILE@", "@OTHER_WORK_FILE@"):
    try:
        found.append(open(path).read())
    except OSError as e:
        found.append(repr(e))
for top in ("/", "@CACHE_DIR@"):
    for root, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if os.path.join(root, d) not in ("/proc", "/sys", "/usr", "/dev")]
        for name in files:
            try:
                found.append(open(os.path.join(root, name), errors="replace").read(200))
            except OSError:
                pass
print("\\n".join(found))
sys.exit("\\n".join(found))
""", RE),
    case("write_outside_the_work_dir", "py3", """\
import sys
wrote = []
for path in ("@PLANTED_FILE@", "@OUTPUT_FILE@", "@OTHER_WORK_FILE@", "@CACHE_DIR@/poison",
             "/usr/lib/linteval-pwned", "/etc/linteval-pwned", "/linteval-pwned"):
    try:
        with open(path, "w") as f:
            f.write("pwned")
        wrote.append(path)
    except OSError as e:
        print(repr(e), file=sys.stderr)
sys.exit(f"wrote {wrote}")
""", RE),
    case("delete_files", "py3", """\
import os, shutil, sys
for path in ("@PLANTED_FILE@", "@OUTPUT_FILE@", "@OTHER_WORK_FILE@"):
    try:
        os.remove(path)
    except OSError as e:
        print(repr(e), file=sys.stderr)
for tree in ("@CACHE_DIR@", "/etc"):
    shutil.rmtree(tree, ignore_errors=True)
sys.exit(1)
""", RE),
    case("kill_parent_and_everything", "py3", """\
import os, signal, sys
for pid in (-1, os.getppid(), 1, @SENTINEL_PID@, @VALIDATOR_PID@):
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError as e:
        print(pid, repr(e), file=sys.stderr)
sys.exit(1)
""", RE),
    case("raise_rlimits_then_hog", "py3", """\
import resource
for limit in (resource.RLIMIT_AS, resource.RLIMIT_NPROC, resource.RLIMIT_CPU, resource.RLIMIT_FSIZE):
    try:
        resource.setrlimit(limit, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    except (ValueError, OSError):
        pass
hog = bytearray(2 << 30)
""", MLE),
    case("setuid_root", "py3", "import os\nos.setuid(0)\nprint(open('/etc/shadow').read())\n", RE),
    case("daemon_outlives_the_run", "py3", """\
import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.closerange(0, 3)
        while True:
            time.sleep(0.1)
    os._exit(0)
print(0)
""", WA),
    case("binary_garbage_on_stdout", "py3", "import sys\nsys.stdout.buffer.write(bytes(range(256)) * 200)\n", WA),
]

# -- Java -----------------------------------------------------------------------------------------


def java(body: str, imports: str = "") -> str:
    return (f"{imports}\npublic class Main {{\n"
            f"    public static void main(String[] args) throws Exception {{\n{body}\n    }}\n}}\n")


JAVA = [
    case("fork_bomb", "java", java("""\
        for (;;) {
            try { new ProcessBuilder("/usr/bin/sleep", "1000").start(); } catch (Exception e) { }
        }"""), TLE, RE, note="RLIMIT_NPROC counts threads: the JVM cannot start a process (or a thread); nothing "
            "the kernel counts says memory"),
    case("thread_bomb", "java", java("""\
        for (;;) {
            Thread t = new Thread(() -> { try { Thread.sleep(1000000); } catch (InterruptedException e) { } });
            t.setDaemon(true);
            t.start();
        }"""), MLE, RE, note="OutOfMemoryError: unable to create native thread (RLIMIT_NPROC: not memory)"),
    case("memory_hog", "java", java("""\
        java.util.List<long[]> hog = new java.util.ArrayList<>();
        for (;;) hog.add(new long[1 << 20]);"""), MLE),
    case("stack_overflow", "java", """\
public class Main {
    static int deep(int n) { return deep(n + 1) + 1; }
    public static void main(String[] args) { System.out.println(deep(0)); }
}
""", RE),
    case("infinite_loop", "java", java("        long x = 0;\n        for (;;) x++;"), TLE),
    case("read_host_environment", "java", java("""\
        String dump = System.getenv().toString() + System.getProperties().toString();
        System.out.println(dump);
        System.err.println(dump);
        System.exit(1);"""), RE),
    case("network_loopback_listener", "java", java("""\
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", @PORT@)) {
            s.getOutputStream().write("exfiltrated".getBytes());
        }"""), RE),
    case("write_outside_the_work_dir", "java", java("""\
        java.nio.file.Files.writeString(java.nio.file.Path.of("@PLANTED_FILE@"), "pwned");"""), RE),
]

CORPUS: list[Case] = CPP + PY + JAVA
