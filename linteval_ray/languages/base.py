"""``LanguageSpec``: everything the evaluator knows about one programming language, as one value.

Extraction (fence tags, how to tell bare code from prose), prompts (wording), linting (which
adapter) and the judge (file names, compile and run command lines, address-space overhead,
environment) read a language's facts from its spec instead of keeping per-language tables.
Each language is one module of this package that builds its spec and registers it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal

from linteval_ray.schema.record import Language
from linteval_ray.validate.sandbox.process import PRLIMIT

if TYPE_CHECKING:
    from linteval_ray.validate.lint.base import Linter

# How an unfenced answer is told from prose (see linteval_ray.prompt.extract, rule 7).
BareCodeTest = Literal["python_program", "not_prose"]

NO_ENV: Mapping[str, str] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class CompileRequest:
    """One compile: the code and the compilers, by their paths inside the sandbox."""

    code: str
    gxx: str
    javac: str
    python: str
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
    java: str
    python: str
    args: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, eq=False)
class LanguageSpec:
    """The facts of one language; built once per language module and registered by ``name``
    (compared by identity: there is one spec per language)."""

    name: Language
    display_name: str  # how prompts name the language: "C++"
    prompt_fence_tag: str  # the info string of the fence prompts ask for
    fence_tags: frozenset[str]  # lower-cased info strings extraction takes as this language
    bare_code_test: BareCodeTest
    source_file: str  # the file name linters and compilers use (when the code does not dictate one)
    linter_tool: str  # ``LintMessage.tool`` of the language's linter
    linter_name: str  # how prompts name that linter
    linter_class: Callable[[], type[Linter]]  # imported on first use: lint modules import this package
    compile_command: Callable[[CompileRequest], CompileCommand]
    run_argv: Callable[[RunRequest], list[str]]
    compile_flags: tuple[str, ...] = ()  # what compiled submissions depend on (part of cache keys)
    tool_compile_flags: tuple[str, ...] = ()  # the same for testlib tools
    address_space_overhead_mb: int = 0  # RLIMIT_AS beyond the memory limit the runtime needs to start
    # What the runtime writes to stderr when its own heap limit (the memory limit) is exhausted, for a
    # runtime whose heap the kernel cannot see (None: the kernel counts the program's memory itself).
    heap_exhausted: bytes | None = None
    # Run environment a program's output depends on (part of the cache key of reference answers).
    output_env: Mapping[str, str] = field(default_factory=lambda: NO_ENV)
    # Run and compile environment the runtime needs under the sandbox's limits.
    runtime_env: Mapping[str, str] = field(default_factory=lambda: NO_ENV)
    interpreted: bool = False  # runs from source under validation.python, whose path keys cached answers
    precompiled_headers: bool = False  # g++ may be given a folder of precompiled headers
    # Code whose compile writes the compiler's class-data archive once per node (None: no archive).
    compiler_archive_warmup: str | None = None

    def address_space_mb(self, memory_mb: int) -> int:
        """RLIMIT_AS of a run whose memory limit is ``memory_mb``."""
        return memory_mb + self.address_space_overhead_mb

    def run_env(self) -> dict[str, str]:
        """Environment of every run (the original's and revisions' alike)."""
        return {**self.runtime_env, **self.output_env}

    def compile_env(self) -> dict[str, str] | None:
        """Environment of the compiler (None: the sandbox's base environment alone)."""
        return dict(self.runtime_env) or None

    def flags(self, for_tools: bool) -> tuple[str, ...]:
        """Compiler flags of a submission, or of a testlib tool."""
        return self.tool_compile_flags if for_tools else self.compile_flags


def stack_limit_prefix(memory_mb: int) -> list[str]:
    """``prlimit --stack`` in front of a program: deep recursion is common and Codeforces
    lets the stack grow to the memory limit."""
    return [PRLIMIT, f"--stack={memory_mb << 20}", "--"]


def frozen_env(env: Mapping[str, str]) -> Mapping[str, str]:
    """A read-only copy of ``env`` (a spec is shared by every caller)."""
    return MappingProxyType(dict(env))
