"""``LanguageSpec``: everything the evaluator knows about one programming language, as one value.

Extraction (fence tags, how to tell bare code from prose), prompts (wording), linting (the
adapter, the profile's settings file, alert families, suppressions, ``calibrate --derive``), the
toolchain (tool rows), the judge (file names, compile and run command lines, the runtime's
memory overhead and address-space reservation, stack, environment) and ``plan`` (measured costs)
read a language's facts from its spec instead of keeping per-language tables. Each language is one
package (``linteval_ray/languages/<name>/``) whose ``SPEC`` is this value; ``registry.py`` knows
them by name.

This module is the contract, below everything that asks for a language: the contracts it
names (the ``Linter``, a tool row, the suppression rules) are imported for type checking only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal

from linteval_ray.languages.categories import paper_category

if TYPE_CHECKING:  # the contracts a spec names; their modules sit above this one
    from linteval_ray.toolchain.spec import ToolSpec
    from linteval_ray.validate.lint.base import Linter
    from linteval_ray.validate.lint.directives import SuppressionRules

# How an unfenced answer is told from prose (see linteval_ray.prompt.extract, rule 7).
BareCodeTest = Literal["python_program", "not_prose"]

NO_ENV: Mapping[str, str] = MappingProxyType({})

# ``calibrate --derive``: (the check names the records show, the base profile's settings file,
# the tools' paths) -> the text of a settings file enabling exactly those checks.
DeriveConfig = Callable[[set[str], Path, Mapping[str, str]], str]


@dataclass(frozen=True, slots=True)
class CompileRequest:
    """One compile: the code and the tools, by their paths inside the sandbox."""

    code: str
    tools: Mapping[str, str]  # tool name -> path (``JudgeContext.tool_paths``: ``python`` is validation.python)
    for_tools: bool = False  # a testlib generator, validator or checker rather than a submission
    include_dirs: tuple[str, ...] = ()  # searched in this order before the system headers
    # A class-data archive of the compiler's own classes (its path in the box): mapped, or with
    # ``dump_archive`` written at the compiler's exit (see ``LanguageSpec.compiler_archive_warmup``).
    compiler_archive: str | None = None
    dump_archive: bool = False


@dataclass(frozen=True, slots=True)
class CompileCommand:
    """How to compile: the file the code is written to, the compiler argv, what the run starts."""

    source: str
    argv: tuple[str, ...]
    entry: str  # the binary, main class or script the run command names


@dataclass(frozen=True, slots=True)
class RunRequest:
    """One run of a compiled program under a memory limit."""

    entry: str
    program_dir: str  # where the compiled artifacts are mounted in the sandbox
    memory_mb: int
    tools: Mapping[str, str]  # tool name -> path, as in ``CompileRequest``
    args: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PrecompiledHeaders:
    """How the compiler precompiles a header (``judge/compile.py``): built once per node, used
    only where the compiler finds it valid."""

    compiler: str  # the tool that builds it, with the language's flags
    header_language: str  # its ``-x`` language for a header
    program_header: str  # the header worth precompiling when a program includes it


@dataclass(frozen=True, slots=True)
class PlanFigures:
    """What ``linteval-ray plan`` knows of the language, measured."""

    validation_cpu_s: float  # CPU-seconds to validate one sample (lint + compile + tests), tools cached
    measured: str  # how, in a few words
    lite_samples: int  # samples of the language in the lite split (the dataset card): the default mix


@dataclass(frozen=True, slots=True, eq=False)
class LanguageSpec:
    """The facts of one language; built once per language package and registered by ``name``
    (compared by identity: there is one spec per language)."""

    name: str  # a record's ``language``
    display_name: str  # how prompts name the language: "C++"
    prompt_fence_tag: str  # the info string of the fence prompts ask for
    fence_tags: frozenset[str]  # lower-cased info strings extraction takes as this language
    bare_code_test: BareCodeTest
    source_file: str  # the file name linters and compilers use (when the code does not dictate one)
    # -- linting
    linter: type[Linter]
    linter_name: str  # how prompts name the linter
    lint_config: str  # the file of a lint profile holding its linter's settings
    profiles_dir: Path  # the built-in profiles' files: <profiles_dir>/<profile name>/<lint_config>
    alert_families: Mapping[str, str]  # check family -> the paper's category (lint/categories.py)
    suppressions: SuppressionRules
    derive_config: DeriveConfig
    # -- the toolchain and the judge
    tools: tuple[ToolSpec, ...]  # what the toolchain installs and probes for it
    compile_command: Callable[[CompileRequest], CompileCommand]
    run_argv: Callable[[RunRequest], list[str]]
    # Runs get RLIMIT_STACK = their memory limit (deep recursion, as Codeforces allows); else the default.
    stack_at_memory_limit: bool = False
    compile_flags: tuple[str, ...] = ()  # what compiled submissions depend on (part of cache keys)
    tool_compile_flags: tuple[str, ...] = ()  # the same for testlib tools
    testlib_tools: bool = False  # testlib's generators, validators and checkers are compiled as this language
    # Memory the runtime itself uses beyond the program's memory limit (the JVM's code cache, class
    # space, metaspace and thread stacks beyond its -Xmx heap): it raises RLIMIT_AS and the memory
    # cgroup's limit alike.
    memory_overhead_mb: int = 0
    # Address space the runtime reserves up front and does not use (Go reserves ~650 MB of arenas
    # before main): it raises RLIMIT_AS only; the memory cgroup stays at the memory limit.
    address_space_reserve_mb: int = 0
    # What the runtime writes to stderr when its own heap limit (the memory limit) is exhausted, for a
    # runtime whose heap the kernel cannot see (None: the kernel counts the program's memory itself).
    heap_exhausted: bytes | None = None
    # Run environment a program's output depends on (part of the cache key of reference answers).
    output_env: Mapping[str, str] = field(default_factory=lambda: NO_ENV)
    # Run and compile environment the runtime needs under the sandbox's limits.
    runtime_env: Mapping[str, str] = field(default_factory=lambda: NO_ENV)
    # The tool that runs a program from source, whose path keys cached compiles and answers (None: compiled).
    interpreter: str | None = None
    precompiled_headers: PrecompiledHeaders | None = None
    # Code whose compile writes the compiler's class-data archive once per node (None: no archive).
    compiler_archive_warmup: str | None = None
    plan: PlanFigures | None = None

    @property
    def linter_tool(self) -> str:
        """``LintMessage.tool`` of the language's linter."""
        return self.linter.tool

    def paper_category(self, family: str) -> str:
        """The paper's category of one of its linter's check families."""
        return paper_category(self.alert_families, family)

    def address_space_mb(self, memory_mb: int) -> int:
        """RLIMIT_AS of a run whose memory limit is ``memory_mb``: the runtime's own memory and its
        up-front reservation added."""
        return memory_mb + self.memory_overhead_mb + self.address_space_reserve_mb

    def used_memory_mb(self, memory_mb: int) -> int:
        """The memory a run whose memory limit is ``memory_mb`` may use (its memory cgroup's limit):
        the runtime's own memory added, never what it only reserves."""
        return memory_mb + self.memory_overhead_mb

    def run_env(self) -> dict[str, str]:
        """Environment of every run (the original's and revisions' alike)."""
        return {**self.runtime_env, **self.output_env}

    def compile_env(self) -> dict[str, str] | None:
        """Environment of the compiler (None: the sandbox's base environment alone)."""
        return dict(self.runtime_env) or None

    def flags(self, for_tools: bool) -> tuple[str, ...]:
        """Compiler flags of a submission, or of a testlib tool."""
        return self.tool_compile_flags if for_tools else self.compile_flags


def frozen_env(env: Mapping[str, str]) -> Mapping[str, str]:
    """A read-only copy of ``env`` (a spec is shared by every caller)."""
    return MappingProxyType(dict(env))
