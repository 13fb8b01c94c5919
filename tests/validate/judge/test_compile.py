"""Compiling C++, Java and Python in the real bwrap sandbox."""

from __future__ import annotations

from pathlib import Path

import pytest

from linteval_ray.languages import language
from linteval_ray.languages.java.commands import JAVAC_FLAGS
from linteval_ray.validate.judge import JudgeContext, compile_cached, compile_program
from linteval_ray.validate.judge.compile import ARCHIVE_DIR, ARCHIVE_FILE, COMPILE_MEMORY_MB, compiler_archive
from linteval_ray.validate.sandbox import RunLimits
from linteval_ray.validate.sandbox.base import Mount


@pytest.mark.parametrize(
    ("language", "code", "expected"),
    [
        ("cpp", "int main() { return undefined_name; }", "undefined_name"),
        ("java", "public class Main { public static void main(String[] a) { int x = ; } }", "illegal start"),
        ("java", "public class Main { void f() {} }\nclass Other {}\npublic class Second {}", "Second"),
        ("py3", "def f(:\n    pass\n", "SyntaxError"),
        ("py3", "x = 1\nprint(x\n", "SyntaxError"),
    ],
)
def test_compile_errors_carry_the_compiler_message(
    ctx: JudgeContext, tmp_path: Path, language: str, code: str, expected: str
) -> None:
    outcome = compile_program(language, code, ctx, tmp_path / "out", prebuilt=False)
    assert not outcome.ok
    assert outcome.error is not None and expected in outcome.error


def test_python_syntax_check_does_not_run_the_program(ctx: JudgeContext, tmp_path: Path) -> None:
    code = "open('/box/ran', 'w').write('x')\n"
    outcome = compile_program("py3", code, ctx, tmp_path / "out", prebuilt=False)
    assert outcome.ok
    assert not (tmp_path / "out" / "ran").exists()


def test_compiled_cpp_artifact_is_runnable_and_readable_by_others(ctx: JudgeContext, tmp_path: Path) -> None:
    code = '#include <cstdio>\nint main() {\n#ifdef ONLINE_JUDGE\n puts("judge");\n#endif\n}\n'
    outcome = compile_program("cpp", code, ctx, tmp_path / "out", prebuilt=False)
    assert outcome.program is not None
    binary = outcome.program.artifact_dir / outcome.program.entry
    assert binary.stat().st_mode & 0o005 == 0o005  # another sandbox uid may run it
    result = ctx.run(outcome.program.argv(256), limits=RunLimits(wall_s=10), mounts=[outcome.program.mount()])
    assert result.ok and result.stdout == b"judge\n"  # ONLINE_JUDGE is defined, as on Codeforces


def test_compile_cached_compiles_once_and_caches_failures_too(ctx: JudgeContext) -> None:
    good = "int main() { return 0; }\n"
    bad = "int main() { return }\n"
    first = compile_cached("cpp", good, ctx)
    failed = compile_cached("cpp", bad, ctx)
    misses = ctx.cache.stats.misses
    again = compile_cached("cpp", good, ctx)
    failed_again = compile_cached("cpp", bad, ctx)
    assert ctx.cache.stats.misses == misses
    assert first.program is not None and again.program is not None
    assert again.program.artifact_dir == first.program.artifact_dir
    assert (again.program.artifact_dir / again.program.entry).is_file()
    assert failed.error and failed_again.error == failed.error



JAVA_PROGRAM = """import java.util.*;
public class Main { public static void main(String[] a) {
    List<Integer> xs = new ArrayList<>(List.of(3, 1, 2)); Collections.sort(xs); System.out.println(xs); } }
"""


def test_javac_maps_its_class_data_archive_and_writes_the_same_classes(ctx: JudgeContext, tmp_path: Path) -> None:
    """The archive is built once per node from the warm-up compile; -Xshare:on fails unless the
    JVM in the box can map it, so this proves every later compile really uses it."""
    plain = compile_program("java", JAVA_PROGRAM, ctx, tmp_path / "plain", prebuilt=False)
    shared = compile_program("java", JAVA_PROGRAM, ctx, tmp_path / "shared")
    assert plain.ok and shared.ok, (plain.error, shared.error)
    assert (tmp_path / "plain" / "Main.class").read_bytes() == (tmp_path / "shared" / "Main.class").read_bytes()
    folder = compiler_archive(language("java"), ctx)
    assert folder is not None and [p.name for p in folder.iterdir()] == [ARCHIVE_FILE]
    (tmp_path / "strict").mkdir()
    (tmp_path / "strict" / "Main.java").write_text(JAVA_PROGRAM)
    result = ctx.sandbox.run(
        [ctx.toolchain.path("javac"), "-J-Xshare:on", f"-J-XX:SharedArchiveFile={ARCHIVE_DIR}/{ARCHIVE_FILE}",
         *JAVAC_FLAGS, "-d", ".", "Main.java"],
        workdir=tmp_path / "strict", limits=RunLimits(wall_s=60, memory_mb=COMPILE_MEMORY_MB),
        mounts=[Mount(src=folder, dst=ARCHIVE_DIR)], env=language("java").compile_env())
    assert result.ok, result.stderr
    broken = compile_program("java", "public class Main { int x = ; }", ctx, tmp_path / "broken")
    assert broken.error is not None and "illegal start" in broken.error
    assert "cds" not in broken.error.lower() and "archive" not in broken.error.lower()
