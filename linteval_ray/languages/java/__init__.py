"""Java 17: compiled by javac and run by the JVM (``commands.py``), linted by PMD (``pmd.py``)."""

from __future__ import annotations

from pathlib import Path

from linteval_ray.languages.base import LanguageSpec, PlanFigures, frozen_env
from linteval_ray.languages.java import categories, commands, derive, suppressions, tools
from linteval_ray.languages.java.pmd import Pmd

SPEC = LanguageSpec(
    name="java",
    display_name="Java",
    prompt_fence_tag="java",
    fence_tags=frozenset({"java"}),
    bare_code_test="not_prose",
    source_file=commands.DEFAULT_SOURCE_FILE,
    linter=Pmd,
    linter_name="PMD",
    lint_config="pmd-ruleset.xml",
    profiles_dir=Path(__file__).with_name("profiles"),
    alert_families=categories.FAMILY_TO_PAPER,
    suppressions=suppressions.RULES,
    derive_config=derive.derived_ruleset,
    tools=(tools.JAVA, tools.JAVAC, tools.PMD),
    compile_command=commands.compile_command,
    run_argv=commands.run_argv,
    compile_flags=commands.JAVAC_FLAGS,
    tool_compile_flags=commands.JAVAC_FLAGS,
    memory_overhead_mb=commands.AS_OVERHEAD_MB,
    heap_exhausted=b"java.lang.OutOfMemoryError: Java heap space",
    runtime_env=frozen_env(commands.RUNTIME_ENV),
    compiler_archive_warmup=commands.ARCHIVE_WARMUP,
    plan=PlanFigures(validation_cpu_s=10.0, measured="java 30.6 s / 3", lite_samples=51),
)
