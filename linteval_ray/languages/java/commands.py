"""How Java 17 compiles and runs: javac, then the JVM.

The source file is named after its public top-level type (a program without one is
``Main.java``); the type that declares ``main`` (package-qualified) is run with
``-DONLINE_JUDGE=true``, ``-Xss64m`` (deep recursion, as Codeforces) and a heap of the memory
limit. Under RLIMIT_AS a JVM needs address space well beyond its heap: the code cache, class
space and metaspace are capped below (64 + 64 + 128 MiB), every Java thread reserves its 64
MiB stack, and glibc would reserve a 64 MiB malloc arena per thread (``MALLOC_ARENA_MAX``).
So Java runs get RLIMIT_AS = memory limit + ``AS_OVERHEAD_MB``: the heap, not the address
space, is what the memory limit bounds for Java. (JDK 17 with these flags needs ~950 MB beyond
its heap to start, ~450 MB without ``-Xss64m``: the thread stacks take the difference.) The
overhead leaves ~1 GB more for the stacks of a program's own threads: the competitive
programmer's ``new Thread(null, task, "", 1 << 26)`` (or ``1 << 28``) for deep recursion is a
correct program, and with 1 GB of overhead every second thread was refused as out of memory.

javac is a JVM too, started with a fixed heap and a short-lived JIT; it runs under the judge's
compile memory limit.
"""

from __future__ import annotations

import re

from linteval_ray.languages.base import CompileCommand, CompileRequest, RunRequest

DEFAULT_SOURCE_FILE = "Main.java"
AS_OVERHEAD_MB = 2048
RUN_FLAGS = (
    # G1 with one thread of each kind: on JDK 17 only G1 maps the class-data archive's heap objects, the
    # module graph among them (with SerialGC a JVM rebuilds it at every start: ~15 of a test's ~50 CPU-ms);
    # one thread each keeps its CPU time where SerialGC's was, and its threads' stacks few.
    "-XX:+UseG1GC",
    "-XX:ParallelGCThreads=1",
    "-XX:ConcGCThreads=1",
    "-XX:ReservedCodeCacheSize=64m",  # the defaults reserve 240 MiB and 1 GiB: caps that fit RLIMIT_AS
    "-XX:CompressedClassSpaceSize=64m",
    "-XX:MaxMetaspaceSize=128m",
    "-Xss64m",
    "-DONLINE_JUDGE=true",
)
JAVAC_FLAGS = ("-J-Xmx512m", "-J-XX:+UseSerialGC", "-J-XX:TieredStopAtLevel=1", "-encoding", "UTF-8", "-nowarn")
# glibc gives every JVM thread its own 64 MiB malloc arena reservation under RLIMIT_AS.
RUNTIME_ENV = {"MALLOC_ARENA_MAX": "2"}


# Compiled once per node with -XX:ArchiveClassesAtExit: the classes javac loads for it go into a
# class-data archive every later javac maps (measured: 0.57 -> 0.38 CPU-s per compile; the class
# files are byte-identical). The JVM ignores an archive that does not match it.
ARCHIVE_WARMUP = """import java.io.*;
import java.util.*;
import java.util.stream.*;

public class Main {
    record Pair(int a, long b) {}
    enum Kind { ONE, TWO }
    static <T extends Comparable<T>> T best(List<T> xs) { return Collections.max(xs); }
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        StringTokenizer st = new StringTokenizer(in.readLine());
        int n = Integer.parseInt(st.nextToken());
        Map<Integer, List<Pair>> byKey = new HashMap<>();
        for (int i = 0; i < n; i++) byKey.computeIfAbsent(i % 3, k -> new ArrayList<>()).add(new Pair(i, i * 2L));
        PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out)));
        out.println(byKey.values().stream().mapToLong(List::size).sum() + " " + best(List.of(3, 1, 2)) + Kind.ONE);
        out.flush();
    }
}
"""


def compile_command(request: CompileRequest) -> CompileCommand:
    source, main_class = java_file_and_main_class(request.code)
    archive: tuple[str, ...] = ()
    if request.compiler_archive:
        option = "ArchiveClassesAtExit" if request.dump_archive else "SharedArchiveFile"
        archive = (f"-J-XX:{option}={request.compiler_archive}",)
    argv = (request.tools["javac"], *archive, *JAVAC_FLAGS, "-d", ".", source)
    return CompileCommand(source=source, argv=argv, entry=main_class)


def run_argv(request: RunRequest) -> list[str]:
    return [
        request.tools["java"],
        f"-Xmx{request.memory_mb}m",
        *RUN_FLAGS,
        "-cp",
        request.program_dir,
        request.entry,
        *request.args,
    ]


# Enough lexing to find top-level types, ignoring comments, strings and chars.
_NOISE = re.compile(r'"""[\s\S]*?"""|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|//[^\n]*|/\*[\s\S]*?\*/')
_TOKEN = re.compile(r"[A-Za-z_$][\w$]*|[{}();.]")
_TYPE_KEYWORDS = {"class", "interface", "enum", "record"}


def java_file_and_main_class(code: str) -> tuple[str, str]:
    """(source file name, class to run): the file is named after the public top-level type
    (``Main.java`` when there is none); the run class is the top-level type declaring
    ``main`` (the public one if none does), qualified with the package."""
    tokens = _TOKEN.findall(_NOISE.sub(" ", code))
    package, public_type, main_type = _scan_tokens(tokens)
    file_name = f"{public_type}.java" if public_type else DEFAULT_SOURCE_FILE
    run_class = main_type or public_type or "Main"
    return file_name, f"{package}.{run_class}" if package else run_class


def _scan_tokens(tokens: list[str]) -> tuple[str, str | None, str | None]:
    package = ""
    public_type = main_type = current_type = None
    depth = 0
    for i, tok in enumerate(tokens):
        if tok == "{":
            depth += 1
        elif tok == "}":
            depth -= 1
        elif depth == 0 and tok == "package" and not package:
            package = _qualified_name(tokens, i + 1)
        elif depth == 0 and tok in _TYPE_KEYWORDS and i + 1 < len(tokens):
            current_type = tokens[i + 1]
            if "public" in _modifiers_before(tokens, i) and public_type is None:
                public_type = current_type
        elif tok == "main" and depth >= 1 and main_type is None and _is_main_declaration(tokens, i):
            main_type = current_type
    return package, public_type, main_type


def _qualified_name(tokens: list[str], start: int) -> str:
    parts = []
    for tok in tokens[start:]:
        if tok == ";":
            break
        parts.append(tok)
    return "".join(parts)


def _modifiers_before(tokens: list[str], index: int) -> set[str]:
    modifiers = set()
    for tok in reversed(tokens[:index]):
        if tok in {"{", "}", ";", ")"}:
            break
        modifiers.add(tok)
    return modifiers


def _is_main_declaration(tokens: list[str], index: int) -> bool:
    return index >= 2 and tokens[index - 1] == "void" and tokens[index + 1 : index + 2] == ["("] and (
        "static" in tokens[max(0, index - 5) : index]
    )
