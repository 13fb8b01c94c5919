"""Compile a program (C++, Java, Python) inside the sandbox into a runnable artifact.

Decisions (each one changes which programs pass, so they are fixed here):
- C++: ``g++ -std=c++17 -O2 -pipe -DONLINE_JUDGE``. ``ONLINE_JUDGE`` is defined as on
  Codeforces, where these programs come from: many guard ``freopen("input.txt")`` with
  ``#ifndef ONLINE_JUDGE``. libm comes with libstdc++ (no ``-lm`` needed) and linking is
  dynamic: the box binds the host's /usr read-only, and a static link costs ~0.3 s more
  per compile for no gain in isolation. testlib tools get ``-O1`` instead of ``-O2``: a
  tool compile is ~5 s of code generation for testlib's templates at -O2, ~3 s at -O1,
  and tools only read and write text (no verdict depends on their speed beyond limits).
- Java 17: the source file is named after its public class (a program without one is
  ``Main.java``); the class that declares ``main`` (package-qualified) is run with
  ``-DONLINE_JUDGE=true``, ``-Xss64m`` (deep recursion, as Codeforces) and a heap of the
  memory limit. A JVM reserves ~1 GiB of address space beyond its heap (code cache,
  class space, metaspace, 64 MiB stacks of every Java thread), so Java runs get
  RLIMIT_AS = memory limit + ``JAVA_AS_OVERHEAD_MB``; the heap, not the address space,
  is what the memory limit bounds for Java.
- C++ and Python runs get RLIMIT_STACK = the memory limit (``prlimit --stack`` in front
  of the program; deep recursion is common and Codeforces allows it).
- Python 3: a ``compile()`` syntax check, inside the sandbox too (compiling hostile
  source can exhaust memory); the program then runs from source with ``PYTHONHASHSEED=0``:
  the iteration order of a set or dict keyed by str depends on the hash seed, so an
  original printing one would otherwise answer differently on every run, and a revision
  is judged under the same seed as the original's answers.

Precompiled headers (only when a ``ContentCache`` is given; binaries are byte-identical):
- a program that includes ``<bits/stdc++.h>`` gets ``-I /pch`` holding ``bits/stdc++.h.gch``
  (1.3 -> 0.4 s). Never force-included: that breaks valid code that does not include it
  (a global ``int count;`` becomes ambiguous). g++ itself uses the .gch only where it is
  valid (the first include, same flags and macros) and else reads the real header.
- testlib tools get ``testlib.h.gch`` of testlib.h alone, in a folder of its own so a
  program cannot reach testlib.h through it. A PCH of bits/stdc++.h + testlib.h saves no
  more (the time is code generation of testlib) and would change what a tool sees.
- each PCH is built once per node, in the sandbox, under the content cache's LOCAL dir
  (keyed by compiler, flags and header; ~100 MB, never sent to the shared tier).
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import errno
import os
import re
import shutil
import tempfile
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from linteval_ray.schema.record import Language
from linteval_ray.validate.cache import ContentCache
from linteval_ray.validate.sandbox.base import Mount, RunLimits, RunResult, Sandbox

if TYPE_CHECKING:
    from linteval_ray.toolchain import Toolchain

log = logging.getLogger(__name__)

PROGRAM_DIR = "/prog"  # where a compiled program is mounted (read-only) in the box
TESTLIB_DIR = "/testlib"  # where the directory holding testlib.h is mounted for tools
PCH_DIR = "/pch"  # where a folder of precompiled headers is mounted (read-only) for g++

PRLIMIT = "/usr/bin/prlimit"
CXX_FLAGS = ("-std=c++17", "-O2", "-pipe", "-DONLINE_JUDGE")
# testlib tools (generator, validator, checker): -O1 compiles ~40% faster than -O2 (the
# time is code generation of testlib's templates) and runs I/O-bound tools about as fast.
TOOL_CXX_FLAGS = ("-std=c++17", "-O1", "-pipe", "-DONLINE_JUDGE")
CXX_BINARY = "prog"
PY_SOURCE = "sol.py"
JAVA_AS_OVERHEAD_MB = 1024
JAVA_RUN_FLAGS = (
    "-XX:+UseSerialGC",
    "-XX:ReservedCodeCacheSize=64m",
    "-XX:CompressedClassSpaceSize=64m",
    "-XX:MaxMetaspaceSize=128m",
    "-Xss64m",
    "-DONLINE_JUDGE=true",
)
# javac itself is a JVM: a fixed heap, a short-lived JIT.
JAVAC_FLAGS = ("-J-Xmx512m", "-J-XX:+UseSerialGC", "-J-XX:TieredStopAtLevel=1", "-encoding", "UTF-8", "-nowarn")
COMPILE_MEMORY_MB = 2048
COMPILE_ERROR_CAP = 8000  # characters of compiler output kept in a result
# What g++/ld/javac print when the work dir's disk is full.
_NO_SPACE = b"No space left on device"
# glibc gives every JVM thread its own 64 MiB malloc arena reservation under RLIMIT_AS.
JAVA_ENV = {"MALLOC_ARENA_MAX": "2"}
# str/bytes hashes (set and dict order) the same in every Python run (see module docstring).
PY_ENV = {"PYTHONHASHSEED": "0"}


class CompiledProgram(BaseModel):
    """A runnable program: its artifacts on the host and how to start it in the box."""

    language: Language
    artifact_dir: Path = Field(description=f"host directory, mounted read-only at {PROGRAM_DIR}")
    entry: str = Field(description="C++ binary, Java main class or Python file inside artifact_dir")
    python: str = "/usr/bin/python3"
    java: str = "/usr/bin/java"

    def mount(self) -> Mount:
        return Mount(src=self.artifact_dir, dst=PROGRAM_DIR)

    def argv(self, memory_mb: int, args: list[str] | None = None) -> list[str]:
        """Command line inside the box for a run under ``memory_mb``."""
        extra = list(args or [])
        # Deep recursion is common: the stack may grow to the memory limit, as on Codeforces.
        stack = [PRLIMIT, f"--stack={memory_mb << 20}", "--"]
        if self.language == "cpp":
            return [*stack, f"{PROGRAM_DIR}/{self.entry}", *extra]
        if self.language == "py3":
            return [*stack, self.python, f"{PROGRAM_DIR}/{self.entry}", *extra]
        return [self.java, f"-Xmx{memory_mb}m", *JAVA_RUN_FLAGS, "-cp", PROGRAM_DIR, self.entry, *extra]

    def address_space_mb(self, memory_mb: int) -> int:
        """RLIMIT_AS for a run whose memory limit is ``memory_mb`` (see module docstring)."""
        return memory_mb + JAVA_AS_OVERHEAD_MB if self.language == "java" else memory_mb

    def env(self) -> dict[str, str]:
        """Environment of every run of this program (the original's and revisions' alike)."""
        if self.language == "java":
            return dict(JAVA_ENV)
        return dict(PY_ENV) if self.language == "py3" else {}


class CompileOutcome(BaseModel):
    """A compiled program, or the (capped) compiler output explaining why not."""

    program: CompiledProgram | None = None
    error: str | None = None
    timed_out: bool = False
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.program is not None

    @property
    def interrupted(self) -> bool:
        """Stopped from outside (time limit, or the compiler killed by a signal): says nothing
        about the source, so it is neither cached nor blamed on the problem."""
        return self.timed_out or "Killed signal terminated program" in (self.error or "")


def compile_program(
    language: Language,
    code: str,
    *,
    sandbox: Sandbox,
    toolchain: Toolchain,
    out_dir: Path,
    timeout_s: float = 120.0,
    python: str = "/usr/bin/python3",
    with_testlib: bool = False,
    cache: ContentCache | None = None,
) -> CompileOutcome:
    """Compile ``code`` in the sandbox; artifacts land in ``out_dir`` (created, must be new).
    ``cache``: where the node's precompiled headers live (None: no PCH)."""
    out_dir.mkdir(parents=True, exist_ok=False)
    started = time.monotonic()
    mounts = [Mount(src=Path(toolchain.testlib_dir), dst=TESTLIB_DIR)] if with_testlib else []
    if language == "cpp":
        pch = precompiled_headers(with_testlib, toolchain, sandbox, cache) if _wants_pch(code, with_testlib) else None
        if pch is not None:
            mounts.append(Mount(src=pch, dst=PCH_DIR))
        argv = cxx_argv(toolchain.gxx, "sol.cpp", with_testlib=with_testlib, pch=pch is not None)
        source, entry = "sol.cpp", CXX_BINARY
    elif language == "java":
        source, main_class = java_file_and_main_class(code)
        argv, entry = [toolchain.javac, *JAVAC_FLAGS, "-d", ".", source], main_class
    else:
        source, argv, entry = PY_SOURCE, [python, "-c", _PY_SYNTAX_CHECK, PY_SOURCE], PY_SOURCE
    # surrogatepass: undecodable input bytes reach the compiler as the linter saw them (not an exception)
    (out_dir / source).write_bytes(code.encode("utf-8", "surrogatepass"))
    limits = RunLimits(wall_s=timeout_s, memory_mb=COMPILE_MEMORY_MB, output_bytes=1 << 20, file_size_mb=256)
    env = dict(JAVA_ENV) if language == "java" else None
    result = sandbox.run(argv, workdir=out_dir, limits=limits, mounts=mounts, env=env)
    seconds = time.monotonic() - started
    if not result.ok:
        error = describe_compile_failure(result)
        if _NO_SPACE in result.stderr or _NO_SPACE in result.stdout:
            # The host's disk, not the code: an infrastructure failure (never cached as a compile error).
            raise OSError(errno.ENOSPC, f"no space left on device while compiling in {out_dir}: {error[-300:]}")
        return CompileOutcome(error=error, timed_out=result.timed_out, seconds=seconds)
    _make_readable(out_dir)
    program = CompiledProgram(
        language=language, artifact_dir=out_dir, entry=entry, python=python, java=toolchain.java
    )
    return CompileOutcome(program=program, seconds=seconds)


def compile_cached(
    language: Language,
    code: str,
    *,
    cache: ContentCache,
    sandbox: Sandbox,
    toolchain: Toolchain,
    scratch: Path,
    timeout_s: float = 120.0,
    python: str = "/usr/bin/python3",
    with_testlib: bool = False,
) -> CompileOutcome:
    """``compile_program`` once per content: failures are cached too (they are deterministic)."""
    key = cache.key(
        "compile",
        language=language,
        code=code,
        toolchain=toolchain.toolchain_id,
        flags=[cxx_flags(with_testlib), JAVAC_FLAGS, with_testlib, python if language == "py3" else None],
    )
    meta = cache.get_json(key)
    if meta is not None:
        if meta["error"] is not None:
            return CompileOutcome(error=meta["error"])
        artifact_dir = cache.get_dir(key)
        if artifact_dir is not None:
            program = CompiledProgram(
                language=language, artifact_dir=artifact_dir, entry=meta["entry"], python=python, java=toolchain.java
            )
            return CompileOutcome(program=program)
    with tempfile.TemporaryDirectory(dir=scratch, prefix="compile-") as tmp:
        outcome = compile_program(
            language,
            code,
            sandbox=sandbox,
            toolchain=toolchain,
            out_dir=Path(tmp) / "out",
            timeout_s=timeout_s,
            python=python,
            with_testlib=with_testlib,
            cache=cache,
        )
        if outcome.program is not None:
            cached_dir = cache.put_dir(key, outcome.program.artifact_dir)
            outcome.program = outcome.program.model_copy(update={"artifact_dir": cached_dir})
            cache.put_json(key, {"error": None, "entry": outcome.program.entry})
        elif not outcome.interrupted:  # a timeout or kill may be the machine's load, not the code
            cache.put_json(key, {"error": outcome.error, "entry": None})
    return outcome


def cxx_argv(
    gxx: str, source: str, *, with_testlib: bool = False, output: str = CXX_BINARY, pch: bool = False
) -> list[str]:
    """The g++ command line; the PCH folder comes first on the include path, so g++ finds
    ``<header>.gch`` before the header itself."""
    include = ["-I", PCH_DIR] if pch else []
    if with_testlib:
        include += ["-I", TESTLIB_DIR]
    return [gxx, *cxx_flags(with_testlib), *include, "-o", output, source]


def cxx_flags(with_testlib: bool) -> tuple[str, ...]:
    return TOOL_CXX_FLAGS if with_testlib else CXX_FLAGS


# -- precompiled headers -----------------------------------------------------------------------

_INCLUDES_STDCPP = re.compile(r"^[ \t]*#[ \t]*include[ \t]*<bits/stdc\+\+\.h>", re.MULTILINE)
STDCPP_WRAPPER = "#include <bits/stdc++.h>\n"
PCH_BUILD_TIMEOUT_S = 300.0
# (cache dir, key) -> PCH folder, or None after a failed build (not retried in this process)
_pch_folders: dict[tuple[str, str], Path | None] = {}


def _wants_pch(code: str, with_testlib: bool) -> bool:
    return with_testlib or _INCLUDES_STDCPP.search(code) is not None


def precompiled_headers(
    for_tools: bool, toolchain: Toolchain, sandbox: Sandbox, cache: ContentCache | None
) -> Path | None:
    """The folder to mount at ``PCH_DIR``: ``testlib.h.gch`` for testlib tools, else
    ``bits/stdc++.h.gch``; built on first use. None without a cache or if the build failed
    (the compile then parses headers as usual: slower, same result)."""
    if cache is None:
        return None
    header = toolchain.testlib_h.read_bytes() if for_tools else STDCPP_WRAPPER.encode()
    gxx = toolchain.manifest().tools["gxx"]
    key = ContentCache.key("pch", tools=for_tools, gxx=[gxx.path, gxx.version, gxx.sha256], flags=cxx_flags(for_tools),
                           header=hashlib.sha256(header).hexdigest())
    memo = (str(cache.local_dir), key)
    if memo not in _pch_folders:
        _pch_folders[memo] = _built_pch(cache.local_dir / "pch", key, for_tools, toolchain, sandbox)
    return _pch_folders[memo]


def _built_pch(root: Path, key: str, for_tools: bool, toolchain: Toolchain, sandbox: Sandbox) -> Path | None:
    """The published PCH folder ``root/key``; one builder per node (a file lock), others wait."""
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
            if not _build_pch(staging, for_tools, toolchain, sandbox):
                return None
            for path in [staging, *staging.rglob("*")]:
                # the sandbox uid wrote it; every later compile trusts it: take it back, read-only for others
                os.chown(path, os.getuid(), os.getgid(), follow_symlinks=False)
                path.chmod(0o755 if path.is_dir() else 0o644)
            os.rename(staging, final)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    log.info("built precompiled header %s", final)
    return final


def _build_pch(out: Path, for_tools: bool, toolchain: Toolchain, sandbox: Sandbox) -> bool:
    """g++ -x c++-header in the box, with the flags programs are compiled with."""
    if for_tools:
        mounts = [Mount(src=Path(toolchain.testlib_dir), dst=TESTLIB_DIR)]
        argv = [toolchain.gxx, *TOOL_CXX_FLAGS, "-I", TESTLIB_DIR, "-x", "c++-header", f"{TESTLIB_DIR}/testlib.h",
                "-o", "testlib.h.gch"]
    else:
        mounts = []
        (out / "bits").mkdir()
        (out / "stdcpp.h").write_text(STDCPP_WRAPPER)
        argv = [toolchain.gxx, *CXX_FLAGS, "-x", "c++-header", "stdcpp.h", "-o", "bits/stdc++.h.gch"]
    limits = RunLimits(wall_s=PCH_BUILD_TIMEOUT_S, memory_mb=COMPILE_MEMORY_MB, output_bytes=1 << 20,
                       file_size_mb=512)
    result = sandbox.run(argv, workdir=out, limits=limits, mounts=mounts)
    if not result.ok:
        log.warning("precompiled header build failed (compiling without it): %s", describe_compile_failure(result))
        return False
    (out / "stdcpp.h").unlink(missing_ok=True)
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


_PY_SYNTAX_CHECK = (
    "import sys\n"
    "src = open(sys.argv[1], 'rb').read()\n"
    "try:\n"
    "    compile(src, sys.argv[1], 'exec')\n"
    "except SyntaxError as e:\n"
    "    sys.exit(f'{e.filename}:{e.lineno}:{e.offset}: {type(e).__name__}: {e.msg}')\n"
    "except ValueError as e:\n"  # e.g. source with NUL bytes
    "    sys.exit(f'{sys.argv[1]}: {e}')\n"
)

# Java: enough lexing to find top-level types, ignoring comments, strings and chars.
_JAVA_NOISE = re.compile(r'"""[\s\S]*?"""|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|//[^\n]*|/\*[\s\S]*?\*/')
_JAVA_TOKEN = re.compile(r"[A-Za-z_$][\w$]*|[{}();.]")
_JAVA_TYPE_KEYWORDS = {"class", "interface", "enum", "record"}


def java_file_and_main_class(code: str) -> tuple[str, str]:
    """(source file name, class to run): the file is named after the public top-level type
    (``Main.java`` when there is none); the run class is the top-level type declaring
    ``main`` (the public one if none does), qualified with the package."""
    tokens = _JAVA_TOKEN.findall(_JAVA_NOISE.sub(" ", code))
    package, public_type, main_type = _scan_java_tokens(tokens)
    file_name = f"{public_type or 'Main'}.java"
    run_class = main_type or public_type or "Main"
    return file_name, f"{package}.{run_class}" if package else run_class


def _scan_java_tokens(tokens: list[str]) -> tuple[str, str | None, str | None]:
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
        elif depth == 0 and tok in _JAVA_TYPE_KEYWORDS and i + 1 < len(tokens):
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
