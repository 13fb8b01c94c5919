"""Java: file and main class from the source, javac and JVM flags, the JVM's address space."""

from __future__ import annotations

import pytest

from linteval_ray.languages import CompileRequest, RunRequest, language
from linteval_ray.languages.java.commands import JAVAC_FLAGS, java_file_and_main_class

JAVA = language("java")


def test_prompts_and_extraction_facts() -> None:
    assert (JAVA.display_name, JAVA.prompt_fence_tag, JAVA.linter_name, JAVA.linter_tool) == (
        "Java", "java", "PMD", "pmd")
    assert JAVA.fence_tags == {"java"} and JAVA.bare_code_test == "not_prose"


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("public class Solution { public static void main(String[] a) {} }", ("Solution.java", "Solution")),
        ("class Main { public static void main(String[] a) {} }", ("Main.java", "Main")),
        # No public class: the file is Main.java, the class declaring main is run.
        ("class Helper {}\nclass Runner { public static void main(String... a) {} }", ("Main.java", "Runner")),
        # The public class is not the one with main; comments and strings mention other classes.
        (
            '// public class Fake\nclass A { static public void main(String[] x) { String s = "public class B {"; } }\n'
            "public final class Util { static class Inner {} }",
            ("Util.java", "A"),
        ),
        (
            "package cf.round;\nimport java.util.*;\n/* class X { */\npublic class Task {\n"
            "  static class Reader {}\n  public static void main(String[] args) { char c = '{'; }\n}",
            ("Task.java", "cf.round.Task"),
        ),
    ],
)
def test_java_file_is_named_after_the_public_class_and_main_class_is_run(
    code: str, expected: tuple[str, str]
) -> None:
    assert java_file_and_main_class(code) == expected


def test_the_compile_command_writes_the_file_javac_expects_and_runs_the_main_class() -> None:
    code = "package p;\npublic class Task { public static void main(String[] a) {} }"
    command = JAVA.compile_command(CompileRequest(code=code, tools={"javac": "/usr/bin/javac"}))
    assert command.source == "Task.java" and command.entry == "p.Task"
    assert command.argv == ("/usr/bin/javac", *JAVAC_FLAGS, "-d", ".", "Task.java")
    assert JAVA.source_file == "Main.java"  # when the code names no public class; what PMD lints


def test_a_run_gets_the_memory_limit_as_heap_and_a_deep_stack() -> None:
    argv = JAVA.run_argv(RunRequest(entry="p.Task", program_dir="/prog", memory_mb=256, tools={"java": "/usr/bin/java"},
                                    args=("x",)))
    assert argv[:2] == ["/usr/bin/java", "-Xmx256m"] and argv[-4:] == ["-cp", "/prog", "p.Task", "x"]
    assert {"-Xss64m", "-DONLINE_JUDGE=true", "-XX:MaxMetaspaceSize=128m"} <= set(argv)
    # G1 with one GC thread of each kind: JDK 17 maps the class-data archive's module graph only for G1
    assert {"-XX:+UseG1GC", "-XX:ParallelGCThreads=1", "-XX:ConcGCThreads=1"} <= set(argv)


def test_the_jvm_gets_address_space_beyond_its_heap_and_few_malloc_arenas() -> None:
    assert JAVA.address_space_mb(256) == 256 + 2048  # ~1 GB of it for the program's thread stacks
    assert JAVA.run_env() == JAVA.compile_env() == {"MALLOC_ARENA_MAX": "2"}
    assert JAVA.interpreter is None and JAVA.precompiled_headers is None
