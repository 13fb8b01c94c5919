"""Compile a program of any registered language inside the sandbox into a runnable artifact.

What each language compiles and runs with (flags, file names, command lines, address-space
overhead, environment) is in its package (``linteval_ray/languages/<lang>/``); each of those decisions
changes which programs pass. This module applies them in the box: the source is written to
the spec's file name, the compiler runs under ``COMPILE_MEMORY_MB``, and a compiled program
is mounted read-only at ``PROGRAM_DIR`` for its runs.

Precompiled headers (a spec's ``precompiled_headers``: C++; unless ``prebuilt=False``; binaries
are byte-identical):
- a program that includes ``<bits/stdc++.h>`` gets ``-I /pch`` holding ``bits/stdc++.h.gch``
  (1.3 -> 0.4 s). Never force-included: that breaks valid code that does not include it
  (a global ``int count;`` becomes ambiguous). g++ itself uses the .gch only where it is
  valid (the first include, same flags and macros) and else reads the real header.
- testlib tools get ``testlib.h.gch`` of testlib.h alone, in a folder of its own so a
  program cannot reach testlib.h through it. A PCH of bits/stdc++.h + testlib.h saves no
  more (the time is code generation of testlib) and would change what a tool sees.
- each PCH is built once per node, in the sandbox, under the content cache's LOCAL dir
  (keyed by compiler, flags and header; ~100 MB, never sent to the shared tier).

A compiler archive (Java): javac's own classes as a class-data-sharing archive, built once per
node the same way (a compile of the spec's warm-up code that dumps it at exit; ~10 MB) and
mounted read-only at ``ARCHIVE_DIR`` for every later compile: javac starts ~1/3 cheaper and
writes the same class files. The JVM silently ignores an archive that does not match it.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import logging
import os
import re
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, Field

from linteval_ray.languages.base import CompileCommand, CompileRequest, LanguageSpec, PrecompiledHeaders, RunRequest
from linteval_ray.languages.registry import language as language_spec
from linteval_ray.validate.cache import ContentCache
from linteval_ray.validate.judge.context import JudgeContext
from linteval_ray.validate.sandbox.base import Mount, RunLimits, RunResult
from linteval_ray.validate.sandbox.box_init import cpu_limit_s
from linteval_ray.validate.scratch import disk_is_full, free_bytes, remove_tree, work_dir

log = logging.getLogger(__name__)

PROGRAM_DIR = "/prog"  # where a compiled program is mounted (read-only) in the box
TESTLIB_DIR = "/testlib"  # where the directory holding testlib.h is mounted for tools
PCH_DIR = "/pch"  # where a folder of precompiled headers is mounted (read-only) for the compiler
ARCHIVE_DIR = "/compiler-archive"  # where the folder of a compiler's class-data archive is mounted
ARCHIVE_FILE = "classes.jsa"

COMPILE_MEMORY_MB = 2048
COMPILE_TMP_MB = 512  # the box's /tmp for a compiler: g++ writes its assembly there
COMPILE_ERROR_CAP = 8000  # characters of compiler output kept in a result


class CompiledProgram(BaseModel):
    """A runnable program: its artifacts on the host and how to start it in the box."""

    language: str
    artifact_dir: Path = Field(description=f"host directory, mounted read-only at {PROGRAM_DIR}")
    entry: str = Field(description="the binary, main class or script inside artifact_dir")
    tools: dict[str, str] = Field(description="tool name -> path, for its run command (JudgeContext.tool_paths)")

    @property
    def spec(self) -> LanguageSpec:
        return language_spec(self.language)

    def mount(self) -> Mount:
        return Mount(src=self.artifact_dir, dst=PROGRAM_DIR)

    def argv(self, memory_mb: int, args: list[str] | None = None) -> list[str]:
        """Command line inside the box for a run under ``memory_mb``."""
        request = RunRequest(entry=self.entry, program_dir=PROGRAM_DIR, memory_mb=memory_mb, tools=self.tools,
                             args=tuple(args or ()))
        return self.spec.run_argv(request)

    def stack_mb(self, memory_mb: int) -> int | None:
        """RLIMIT_STACK for a run whose memory limit is ``memory_mb`` (None: the system's default)."""
        return memory_mb if self.spec.stack_at_memory_limit else None

    def env(self) -> dict[str, str]:
        """Environment of every run of this program (the original's and revisions' alike)."""
        return self.spec.run_env()


class CompileOutcome(BaseModel):
    """A compiled program, or the (capped) compiler output explaining why not."""

    program: CompiledProgram | None = None
    error: str | None = None
    timed_out: bool = False
    killed: bool = Field(default=False, description="the compiler died of a signal (e.g. the CPU limit's SIGKILL)")
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.program is not None

    @property
    def interrupted(self) -> bool:
        """Stopped from outside (time limit, or the compiler killed by a signal): says nothing
        about the source, so it is neither cached nor blamed on the problem. Told by the run's
        status and CPU time, never by the compiler's text (the source can print any text)."""
        return self.timed_out or self.killed


def compile_program(language: str, code: str, ctx: JudgeContext, out_dir: Path, *,
                    with_testlib: bool = False, prebuilt: bool = True) -> CompileOutcome:
    """Compile ``code`` in the context's sandbox under its compile time limit; artifacts land in
    ``out_dir`` (created, must be new). ``prebuilt``: with the node's precompiled headers and
    compiler archive (built once into the context's cache; same program, faster compile)."""
    out_dir.mkdir(parents=True, exist_ok=False)
    started = time.monotonic()
    spec = language_spec(language)
    tools = ctx.tool_paths()
    mounts, include_dirs = _compiler_view(spec, code, with_testlib, ctx, prebuilt)
    archive = compiler_archive(spec, ctx) if prebuilt else None
    if archive is not None:
        mounts.append(Mount(src=archive, dst=ARCHIVE_DIR))
    command = spec.compile_command(CompileRequest(
        code=code, tools=tools, for_tools=with_testlib, include_dirs=include_dirs,
        compiler_archive=f"{ARCHIVE_DIR}/{ARCHIVE_FILE}" if archive else None,
    ))
    # surrogatepass: undecodable input bytes reach the compiler as the linter saw them (not an exception)
    (out_dir / command.source).write_bytes(code.encode("utf-8", "surrogatepass"))
    limits = RunLimits(wall_s=ctx.limits.compile_timeout_s, memory_mb=COMPILE_MEMORY_MB, output_bytes=1 << 20,
                       file_size_mb=256, tmp_mb=COMPILE_TMP_MB)
    result = ctx.sandbox.run(list(command.argv), workdir=out_dir, limits=limits, mounts=mounts,
                             env=spec.compile_env())
    seconds = time.monotonic() - started
    if not result.ok:
        error = describe_compile_failure(result)
        if disk_is_full(out_dir):
            # The host's disk, not the code: an infrastructure failure (never cached as a compile error).
            raise OSError(errno.ENOSPC, f"{os.strerror(errno.ENOSPC)}: {free_bytes(out_dir)} bytes free under "
                                        f"{out_dir} after a failed compile")
        # g++ reports a killed cc1plus as its own exit 1; the CPU it used says it hit the limit.
        killed = result.signal is not None or result.cpu_s >= cpu_limit_s(limits)
        return CompileOutcome(error=error, timed_out=result.timed_out, killed=killed, seconds=seconds)
    _make_readable(out_dir)
    program = CompiledProgram(language=language, artifact_dir=out_dir, entry=command.entry, tools=tools)
    return CompileOutcome(program=program, seconds=seconds)


def _compiler_view(spec: LanguageSpec, code: str, with_testlib: bool, ctx: JudgeContext, prebuilt: bool
                   ) -> tuple[list[Mount], tuple[str, ...]]:
    """What the compiler sees besides the source (testlib for tools, precompiled headers) and
    the include folders to search, in order."""
    mounts = [Mount(src=ctx.toolchain.testlib_dir, dst=TESTLIB_DIR)] if with_testlib else []
    pch = None
    if prebuilt and spec.precompiled_headers is not None and _wants_pch(spec.precompiled_headers, code, with_testlib):
        pch = precompiled_headers(spec, with_testlib, ctx)
    if pch is not None:
        mounts.append(Mount(src=pch, dst=PCH_DIR))
    return mounts, box_include_dirs(with_testlib=with_testlib, pch=pch is not None)


def box_include_dirs(*, with_testlib: bool, pch: bool) -> tuple[str, ...]:
    """The include folders in the box, in search order: the PCH folder first, so the compiler
    finds ``<header>.gch`` before the header itself."""
    return (*([PCH_DIR] if pch else []), *([TESTLIB_DIR] if with_testlib else []))


def compile_cached(language: str, code: str, ctx: JudgeContext, *, with_testlib: bool = False) -> CompileOutcome:
    """``compile_program`` once per content: failures are cached too (they are deterministic)."""
    spec = language_spec(language)
    key = ctx.cache.key(
        "tool" if with_testlib else "compile",  # "tool": single flight, counted apart in the manifest
        language=language,
        code=code,
        toolchain=ctx.toolchain.language_id(language),
        flags=_compile_key_flags(spec, with_testlib, ctx),
    )
    meta = ctx.cache.get_json(key)
    if meta is not None:
        if meta["error"] is not None:
            return CompileOutcome(error=meta["error"])
        artifact_dir = ctx.cache.get_dir(key)
        if artifact_dir is not None:
            program = CompiledProgram(language=language, artifact_dir=artifact_dir, entry=meta["entry"],
                                      tools=ctx.tool_paths())
            return CompileOutcome(program=program)
    with work_dir(ctx.scratch, "compile-") as tmp:
        outcome = compile_program(language, code, ctx, tmp / "out", with_testlib=with_testlib)
        if outcome.program is not None:
            cached_dir = ctx.cache.put_dir(key, outcome.program.artifact_dir)
            outcome.program = outcome.program.model_copy(update={"artifact_dir": cached_dir})
            ctx.cache.put_json(key, {"error": None, "entry": outcome.program.entry})
        elif not outcome.interrupted:  # a timeout or kill may be the machine's load, not the code
            ctx.cache.put_json(key, {"error": outcome.error, "entry": None})
    return outcome


def _compile_key_flags(spec: LanguageSpec, with_testlib: bool, ctx: JudgeContext) -> list[object]:
    """What a compile depends on besides code and toolchain: the language's own flags, the
    interpreter's path for a language run from source, and the compiler's environment
    (``GOFLAGS``, ``CGO_ENABLED``, ``SOURCE_DATE_EPOCH`` change what it writes). An empty environment
    adds nothing: the keys of languages without one stay those of their cached compiles."""
    env = spec.compile_env()
    return [spec.flags(with_testlib), with_testlib, ctx.interpreter_path(spec), *([env] if env else [])]


# -- precompiled headers -----------------------------------------------------------------------

WRAPPER = "wrapper.h"  # includes the program header, precompiled under that header's name
PCH_BUILD_TIMEOUT_S = 300.0
# (root, key) -> a PCH or compiler-archive folder, or None after a failed build
_node_folders: dict[tuple[str, str], Path | None] = {}


def _wants_pch(pch: PrecompiledHeaders, code: str, with_testlib: bool) -> bool:
    return with_testlib or _includes(pch.program_header).search(code) is not None


def _includes(header: str) -> re.Pattern[str]:
    return re.compile(rf"^[ \t]*#[ \t]*include[ \t]*<{re.escape(header)}>", re.MULTILINE)


def precompiled_headers(spec: LanguageSpec, for_tools: bool, ctx: JudgeContext) -> Path | None:
    """The folder to mount at ``PCH_DIR``: ``testlib.h.gch`` for testlib tools, else the
    precompiled program header (``bits/stdc++.h.gch``); built on first use. None if the build
    failed (the compile then parses headers as usual: slower, same result)."""
    pch = spec.precompiled_headers
    assert pch is not None, "only a language with precompiled headers asks for them"
    header = ctx.toolchain.testlib_h.read_bytes() if for_tools else f"#include <{pch.program_header}>\n".encode()
    compiler = ctx.toolchain.manifest().tools[pch.compiler]
    key = ContentCache.key("pch", tools=for_tools, compiler=[compiler.path, compiler.version, compiler.sha256],
                           flags=spec.flags(for_tools), header=hashlib.sha256(header).hexdigest())
    return _built_once(ctx.cache.local_dir / "pch", key, lambda out: _build_pch(out, spec, pch, for_tools, ctx))


def _built_once(root: Path, key: str, build: Callable[[Path], bool]) -> Path | None:
    """The folder ``root/key``, built by ``build`` on first use in this process, or None when
    that failed (not retried in this process)."""
    memo = (str(root), key)
    if memo not in _node_folders:
        _node_folders[memo] = _published(root, key, build)
    return _node_folders[memo]


def _published(root: Path, key: str, build: Callable[[Path], bool]) -> Path | None:
    """The published folder ``root/key``; one builder per node (a file lock), others wait."""
    final = root / key
    root.mkdir(parents=True, exist_ok=True)
    root.chmod(0o755)
    with open(root / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if final.is_dir():
            return final
        staging = root / f".tmp-{key}-{uuid.uuid4().hex}"
        staging.mkdir()
        try:
            if not build(staging):
                return None
            for path in [staging, *staging.rglob("*")]:
                # the sandbox uid wrote it; every later compile trusts it: take it back, read-only for others
                os.chown(path, os.getuid(), os.getgid(), follow_symlinks=False)
                path.chmod(0o755 if path.is_dir() else 0o644)
            os.rename(staging, final)
        finally:
            remove_tree(staging)
    log.info("built %s", final)
    return final


def _build_pch(out: Path, spec: LanguageSpec, pch: PrecompiledHeaders, for_tools: bool, ctx: JudgeContext) -> bool:
    """The compiler on the header (``-x <header language>``) in the box, with the flags programs
    are compiled with."""
    compiler = [ctx.tool_paths()[pch.compiler], *spec.flags(for_tools)]
    if for_tools:
        mounts = [Mount(src=ctx.toolchain.testlib_dir, dst=TESTLIB_DIR)]
        argv = [*compiler, "-I", TESTLIB_DIR, "-x", pch.header_language, f"{TESTLIB_DIR}/testlib.h",
                "-o", "testlib.h.gch"]
    else:
        mounts = []
        target = out / f"{pch.program_header}.gch"
        target.parent.mkdir(parents=True, exist_ok=True)
        (out / WRAPPER).write_text(f"#include <{pch.program_header}>\n")
        argv = [*compiler, "-x", pch.header_language, WRAPPER, "-o", f"{pch.program_header}.gch"]
    limits = RunLimits(wall_s=PCH_BUILD_TIMEOUT_S, memory_mb=COMPILE_MEMORY_MB, output_bytes=1 << 20,
                       file_size_mb=512, tmp_mb=COMPILE_TMP_MB)
    result = ctx.sandbox.run(argv, workdir=out, limits=limits, mounts=mounts)
    if not result.ok:
        log.warning("precompiled header build failed (compiling without it): %s", describe_compile_failure(result))
        return False
    (out / WRAPPER).unlink(missing_ok=True)
    return True


# -- compiler archives ------------------------------------------------------------------------


def compiler_archive(spec: LanguageSpec, ctx: JudgeContext) -> Path | None:
    """The folder holding ``ARCHIVE_FILE`` for ``spec``'s compiler, built on first use; None for
    a compiler that has none, or if the build failed (compiles go on without it: slower, same
    output)."""
    if spec.compiler_archive_warmup is None:
        return None
    # Every tool's version and hash: coarser than needed, and a rebuild is cheap.
    key = ContentCache.key("compiler-archive", language=spec.name, argv=_warmup_command(spec, ctx).argv,
                           toolchain=ctx.toolchain.language_id(spec.name))
    return _built_once(ctx.cache.local_dir / "compiler-archive", key, lambda out: _build_archive(out, spec, ctx))


def _warmup_command(spec: LanguageSpec, ctx: JudgeContext) -> CompileCommand:
    """The warm-up compile, which writes the archive into its working folder at exit."""
    return spec.compile_command(CompileRequest(
        code=spec.compiler_archive_warmup or "", tools=ctx.tool_paths(), compiler_archive=ARCHIVE_FILE,
        dump_archive=True))


def _build_archive(out: Path, spec: LanguageSpec, ctx: JudgeContext) -> bool:
    """The warm-up compile in the box, in ``out``; all it leaves there is the archive."""
    command = _warmup_command(spec, ctx)
    (out / command.source).write_text(spec.compiler_archive_warmup or "")
    limits = RunLimits(wall_s=PCH_BUILD_TIMEOUT_S, memory_mb=COMPILE_MEMORY_MB, output_bytes=1 << 20,
                       file_size_mb=256, tmp_mb=COMPILE_TMP_MB)
    result = ctx.sandbox.run(list(command.argv), workdir=out, limits=limits, env=spec.compile_env())
    if not result.ok or not (out / ARCHIVE_FILE).is_file():
        log.warning("compiler archive build failed (compiling without it): %s", describe_compile_failure(result))
        return False
    for path in out.iterdir():
        if path.name != ARCHIVE_FILE:
            path.unlink()
    return True


def _make_readable(out_dir: Path) -> None:
    """The compiler ran as the sandbox uid; later runs (maybe another uid) only read."""
    for path in [out_dir, *out_dir.rglob("*")]:
        path.chmod(0o755 if path.is_dir() or os.access(path, os.X_OK) else 0o644)


def describe_compile_failure(result: RunResult) -> str:
    if result.timed_out:
        return "compilation timed out"
    text = (result.stderr or result.stdout).decode("utf-8", "replace").strip()
    if result.output_exceeded:
        text += "\n[compiler output truncated]"
    if not text:
        text = f"compiler exited with {result.exit_code if result.exit_code is not None else f'signal {result.signal}'}"
    return text if len(text) <= COMPILE_ERROR_CAP else text[:COMPILE_ERROR_CAP] + "\n[truncated]"
