"""The compilers and interpreters LintEval needs work inside the box with realistic limits."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from linteval_ray.languages import CompileRequest, RunRequest, language
from linteval_ray.validate.sandbox import BOX_DIR, BwrapSandbox, Mount, RunLimits, RunResult

CPP = r"""
#include "twice.h"
#include <iostream>
#include <string>
#include <vector>
int main(int argc, char** argv) {
    if (argc > 1 && std::string(argv[1]) == "hog") {
        std::vector<std::vector<char>> blocks;
        while (true) blocks.emplace_back(64 << 20, 'x');
    }
    int n;
    std::cin >> n;
    std::cout << twice(n) << "\n";
}
"""

JAVA = """
import java.util.Scanner;
public class Main {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        int n = in.nextInt();
        if (n < 0) { long[][] hog = new long[1 << 20][]; for (int i = 0; ; i++) hog[i] = new long[1 << 20]; }
        System.out.println(n * 3);
    }
}
"""

COMPILE = RunLimits(wall_s=120, memory_mb=2048, nproc=64)
JAVA_MEMORY_MB = 256


@pytest.fixture(scope="module")
def cpp_binary(sandbox: BwrapSandbox, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """g++ in the box, with an include folder mounted read-only (as testlib will be)."""
    include = tmp_path_factory.mktemp("include")
    include.chmod(0o755)
    (include / "twice.h").write_text("inline int twice(int x) { return 2 * x; }\n")
    workdir = tmp_path_factory.mktemp("cpp")
    (workdir / "sol.cpp").write_text(CPP)
    r = sandbox.run(
        ["g++", "-O0", "-std=c++17", "-I/opt/include", "-o", "sol", "sol.cpp"],
        workdir=workdir,
        limits=COMPILE,
        mounts=[Mount(src=include, dst="/opt/include")],
    )
    assert r.ok, r.stderr.decode()
    return workdir / "sol"


def test_cpp_compiles_and_runs(sandbox: BwrapSandbox, cpp_binary: Path) -> None:
    r = sandbox.run(["./sol"], workdir=cpp_binary.parent, limits=RunLimits(wall_s=10, memory_mb=256), stdin=b"21\n")
    assert r.ok, r.stderr
    assert r.stdout == b"42\n"


def test_cpp_allocation_failure_under_an_address_space_limit(sandbox: BwrapSandbox, cpp_binary: Path) -> None:
    r = sandbox.run(["./sol", "hog"], workdir=cpp_binary.parent, limits=RunLimits(wall_s=30, memory_mb=256))
    assert r.signal == signal.SIGABRT
    assert b"std::bad_alloc" in r.stderr
    assert not r.timed_out and r.peak_rss_mb is not None and r.peak_rss_mb > 0.5 * 256


@pytest.fixture(scope="module")
def java_classes(sandbox: BwrapSandbox, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """javac in the box, with the judge's flags and environment, under the judge's compile limit."""
    workdir = tmp_path_factory.mktemp("java")
    java = language("java")
    command = java.compile_command(CompileRequest(code=JAVA, tools={"javac": "javac"}))
    (workdir / command.source).write_text(JAVA)
    r = sandbox.run(list(command.argv), workdir=workdir, limits=COMPILE, env=java.compile_env())
    assert r.ok, (r.stdout + r.stderr).decode()
    return workdir


def java_run(sandbox: BwrapSandbox, classes: Path, stdin: bytes) -> RunResult:
    """``Main`` as the judge runs it: heap = the memory limit, RLIMIT_AS = limit + the JVM's overhead."""
    java = language("java")
    argv = java.run_argv(RunRequest(entry="Main", program_dir=BOX_DIR, memory_mb=JAVA_MEMORY_MB,
                                    tools={"java": "java"}))
    limits = RunLimits(wall_s=30, memory_mb=java.address_space_mb(JAVA_MEMORY_MB))
    return sandbox.run(argv, workdir=classes, limits=limits, stdin=stdin, env=java.run_env())


def test_java_compiles_and_runs_under_a_memory_limit(sandbox: BwrapSandbox, java_classes: Path) -> None:
    r = java_run(sandbox, java_classes, b"5\n")
    assert r.ok, (r.stdout + r.stderr).decode()
    assert r.stdout == b"15\n"


def test_java_heap_exhaustion_is_flagged_as_memory(sandbox: BwrapSandbox, java_classes: Path) -> None:
    r = java_run(sandbox, java_classes, b"-1\n")
    assert r.exit_code == 1
    assert b"java.lang.OutOfMemoryError: Java heap space" in r.stderr
    assert r.peak_rss_mb is not None and r.peak_rss_mb > JAVA_MEMORY_MB


def test_python3_runs_a_solution(sandbox: BwrapSandbox, workdir: Path) -> None:
    (workdir / "sol.py").write_text("import sys\nprint(sum(map(int, sys.stdin.read().split())))\n")
    r = sandbox.run(["/usr/bin/python3", "sol.py"], workdir=workdir, limits=RunLimits(wall_s=10, memory_mb=256),
                    stdin=b"1 2 3\n")
    assert r.ok, r.stderr
    assert r.stdout == b"6\n"
