"""The compilers and interpreters LintEval needs work inside the box with realistic limits."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from linteval_ray.validate.sandbox import JVM_AS_OVERHEAD_MB, BwrapSandbox, Mount, RunLimits, jvm_box_flags

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


def test_cpp_allocation_failure_is_flagged_as_memory(sandbox: BwrapSandbox, cpp_binary: Path) -> None:
    r = sandbox.run(["./sol", "hog"], workdir=cpp_binary.parent, limits=RunLimits(wall_s=30, memory_mb=256))
    assert r.signal == signal.SIGABRT
    assert b"std::bad_alloc" in r.stderr
    assert r.memory_exceeded and not r.timed_out


@pytest.fixture(scope="module")
def java_classes(sandbox: BwrapSandbox, tmp_path_factory: pytest.TempPathFactory) -> Path:
    workdir = tmp_path_factory.mktemp("java")
    (workdir / "Main.java").write_text(JAVA)
    flags = [f"-J{flag}" for flag in jvm_box_flags(256)]
    r = sandbox.run(
        ["javac", *flags, "Main.java"],
        workdir=workdir,
        limits=RunLimits(wall_s=120, memory_mb=256 + JVM_AS_OVERHEAD_MB),
    )
    assert r.ok, (r.stdout + r.stderr).decode()
    return workdir


def java_limits() -> RunLimits:
    return RunLimits(wall_s=30, memory_mb=256 + JVM_AS_OVERHEAD_MB)


def test_java_compiles_and_runs_under_a_memory_limit(sandbox: BwrapSandbox, java_classes: Path) -> None:
    r = sandbox.run(["java", *jvm_box_flags(256), "-cp", ".", "Main"], workdir=java_classes, limits=java_limits(), stdin=b"5\n")
    assert r.ok, (r.stdout + r.stderr).decode()
    assert r.stdout == b"15\n"


def test_java_heap_exhaustion_is_flagged_as_memory(sandbox: BwrapSandbox, java_classes: Path) -> None:
    r = sandbox.run(["java", *jvm_box_flags(256), "-cp", ".", "Main"], workdir=java_classes, limits=java_limits(), stdin=b"-1\n")
    assert r.exit_code == 1
    assert b"java.lang.OutOfMemoryError" in r.stderr
    assert r.memory_exceeded


def test_python3_runs_a_solution(sandbox: BwrapSandbox, workdir: Path) -> None:
    (workdir / "sol.py").write_text("import sys\nprint(sum(map(int, sys.stdin.read().split())))\n")
    r = sandbox.run(["/usr/bin/python3", "sol.py"], workdir=workdir, limits=RunLimits(wall_s=10, memory_mb=256), stdin=b"1 2 3\n")
    assert r.ok, r.stderr
    assert r.stdout == b"6\n"
