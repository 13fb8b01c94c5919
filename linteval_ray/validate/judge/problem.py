"""Model-independent work for a problem, done once per content and cached.

1. compile the testlib generator, validator and checker (C++17 -Og, ~2-3 s each cold);
2. run every generator command line, drop inputs the validator rejects, dedupe. Lines
   are split as a POSIX shell would (``commands.py``) but never run by one: a line using
   shell syntax (``>``, ``|``, ``$(`` ...) is a generator failure naming it, like a
   generator that crashes (``TestSet.generator_failures``);
3. per ORIGINAL program: run it on every input; its output is the expected answer
   (testlib checkers compare participant output ``ouf`` with the jury answer ``ans``)
   and its time scales the revision's time limit. Inputs it fails on are dropped;
4. the checker must accept the original's own answer (on the first kept test): a
   checker that crashes or rejects it would blame every revision for the jury's fault.

A second evaluation of the same problem compiles nothing and runs no generator:
tests and reference answers come from the cache, and the checker binary too.
A broken problem raises ``ProblemError`` with a class; the engine turns it into an
``invalid_problem`` row.
"""

from __future__ import annotations

import hashlib
import json
import logging
from enum import StrEnum
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import BaseModel, Field

from linteval_ray.languages.registry import language as language_spec
from linteval_ray.languages.registry import testlib_language
from linteval_ray.schema.record import Language, LintEvalRecord
from linteval_ray.validate.judge.commands import GeneratorCommand, parse_generator_cmd, parse_line
from linteval_ray.validate.judge.compile import CompiledProgram, compile_cached
from linteval_ray.validate.judge.context import JudgeContext
from linteval_ray.validate.judge.limits import run_memory
from linteval_ray.validate.judge.records import ReferenceTest
from linteval_ray.validate.sandbox.base import Mount, RunLimits, RunResult
from linteval_ray.validate.scratch import work_dir

log = logging.getLogger(__name__)

TOOL_MEMORY_MB = 1024  # generators and validators: generous, they are the jury's
TESTS_MANIFEST = "tests.json"
REFERENCE_MANIFEST = "reference.json"
TESTS_DIR = "/tests"  # where tests and answers are mounted for the checker
ANSWERS_DIR = "/answers"
OUTPUT_FILE = "out.txt"  # the output under check, in the checker's work dir


class ProblemErrorKind(StrEnum):
    GENERATOR_COMPILE_ERROR = "generator_compile_error"
    VALIDATOR_COMPILE_ERROR = "validator_compile_error"
    CHECKER_COMPILE_ERROR = "checker_compile_error"
    NO_VALID_TESTS = "no_valid_tests"
    ORIGINAL_COMPILE_ERROR = "original_compile_error"
    ORIGINAL_FAILS_ALL = "original_fails_all"
    CHECKER_REJECTS_REFERENCE = "checker_rejects_reference"


class ProblemError(Exception):
    """The problem (its tools, tests or original program) is unusable."""

    def __init__(self, kind: ProblemErrorKind, detail: str = "") -> None:
        super().__init__(f"{kind.value}: {detail}" if detail else kind.value)
        self.kind = kind
        self.detail = detail


class GeneratorFailure(BaseModel):
    """A generator command line that made no input, and why (its test is dropped)."""

    number: int = Field(description="1-based line number in generator_cmd")
    line: str
    error: str

    def describe(self) -> str:
        return f"line {self.number} {self.line!r}: {self.error}"


class TestSet(BaseModel):
    """Validated, deduplicated inputs ``<name>.in`` in ``directory``, in command order."""

    key: str = Field(description="content key of this test set (inputs depend on nothing else)")
    directory: Path
    names: list[str]
    commands: int = Field(description="generator command lines run")
    generator_failed: int = 0
    generator_failures: list[GeneratorFailure] = Field(
        default_factory=list, description="each failed command line with its error, in command order"
    )
    rejected: int = Field(default=0, description="inputs the validator rejected")
    duplicates: int = 0
    origins: list[tuple[int, str]] = Field(
        default_factory=list, description="per name: (line number, line) of the generator command that made it"
    )

    def input_path(self, name: str) -> Path:
        return self.directory / f"{name}.in"

    def origin(self, name: str) -> tuple[int, str] | None:
        """The generator command line (number, text) that made input ``name``."""
        index = self.names.index(name)
        return self.origins[index] if index < len(self.origins) else None


class ReferenceRun(BaseModel):
    """The original's answers ``<name>.ans`` in ``directory`` for the tests it passed."""

    directory: Path
    tests: list[ReferenceTest]
    failed: int = Field(default=0, description="inputs the original crashed or timed out on (dropped)")

    def answer_path(self, name: str) -> Path:
        return self.directory / f"{name}.ans"


class PreparedProblem(BaseModel):
    """Everything needed to judge revisions of one original program."""

    checker: CompiledProgram
    tests: TestSet
    reference: ReferenceRun

    @property
    def tests_generated(self) -> int:
        return self.tests.commands

    @property
    def tests_dropped(self) -> int:
        """Inputs lost before judging: generator failures, validator rejects, duplicates, original failures."""
        return self.tests.commands - len(self.reference.tests)


def prepare_problem(record: LintEvalRecord, ctx: JudgeContext) -> PreparedProblem:
    """Checker, tests and reference answers for ``record``'s problem and original (cached)."""
    checker = compile_tool(record.checker, ctx, ProblemErrorKind.CHECKER_COMPILE_ERROR)
    tests = build_tests(record, ctx)
    reference = run_reference(record.language, record.code, tests, ctx)
    verify_checker(checker, tests, reference, ctx)
    return PreparedProblem(checker=checker, tests=tests, reference=reference)


def compile_tool(source: str, ctx: JudgeContext, error_kind: ProblemErrorKind) -> CompiledProgram:
    outcome = compile_cached(testlib_language().name, source, ctx, with_testlib=True)
    if outcome.program is None:
        if outcome.interrupted:  # retried on the next run instead of condemning the problem
            raise RuntimeError(f"compiling the problem's {error_kind.value.split('_')[0]} was interrupted: "
                               f"{outcome.error or 'timed out'}")
        raise ProblemError(error_kind, outcome.error or "")
    return outcome.program


# -- tests -----------------------------------------------------------------------------------------


def build_tests(record: LintEvalRecord, ctx: JudgeContext) -> TestSet:
    """Generated + validated + deduplicated inputs; the generator runs once per content."""
    commands = parse_generator_cmd(record.generator_cmd)
    key = ctx.cache.key(
        "tests",
        generator=record.generator,
        validator=record.validator,
        commands=[command.model_dump() for command in commands],
        toolchain=ctx.toolchain.language_id(testlib_language().name),
        flags=testlib_language().flags(for_tools=True),
        wall_s=ctx.limits.reference_time_limit_s,
        output_mb=ctx.limits.output_mb,
        manifest=2,  # 2: the manifest names each input's generator line (origins)
    )
    directory = ctx.cache.get_dir(key)
    if directory is None:
        directory = _generate_tests(record, commands, key, ctx)
    tests = TestSet.model_validate(
        {**json.loads((directory / TESTS_MANIFEST).read_text()), "directory": directory, "key": key}
    )
    if not tests.names:
        raise ProblemError(ProblemErrorKind.NO_VALID_TESTS, _no_tests_detail(tests))
    return tests


def _no_tests_detail(tests: TestSet) -> str:
    detail = (f"{tests.commands} commands: {tests.generator_failed} generator failures, "
              f"{tests.rejected} rejected by the validator")
    if tests.generator_failures:
        detail += f"; first generator failure: {tests.generator_failures[0].describe()}"
    return detail


class Generated(NamedTuple):
    status: str  # "ok" or the drop reason: "generator_failed", "rejected"
    data: bytes = b""
    why: str = ""


def _generate_tests(record: LintEvalRecord, commands: list[GeneratorCommand], key: str, ctx: JudgeContext) -> Path:
    generator = compile_tool(record.generator, ctx, ProblemErrorKind.GENERATOR_COMPILE_ERROR)
    validator = compile_tool(record.validator, ctx, ProblemErrorKind.VALIDATOR_COMPILE_ERROR)
    outcomes = ctx.map(lambda cmd: _generate_one(cmd, generator, validator, ctx), commands)
    with work_dir(ctx.scratch, "tests-") as tmp:
        staging = Path(tmp)
        manifest = _stage_inputs(commands, outcomes, staging)
        (staging / TESTS_MANIFEST).write_text(json.dumps(manifest))
        lost = {reason: manifest[reason] for reason in ("generator_failed", "rejected", "duplicates")}
        log.info("problem %s: %d tests from %d commands %s",
                 record.problem_id, len(manifest["names"]), len(commands), lost)
        for failure in manifest["generator_failures"]:
            log.info("problem %s: generator command %s", record.problem_id, GeneratorFailure(**failure).describe())
        return ctx.cache.put_dir(key, staging)


def _stage_inputs(commands: list[GeneratorCommand], outcomes: list[Generated], staging: Path) -> dict[str, Any]:
    """Write each new valid input to ``staging`` as ``<name>.in``; the manifest of what was kept and lost."""
    seen: set[str] = set()
    names: list[str] = []
    origins: list[tuple[int, str]] = []
    counts = {"generator_failed": 0, "rejected": 0, "duplicates": 0}
    failures: list[dict[str, Any]] = []
    for command, (status, data, why) in zip(commands, outcomes, strict=True):  # one outcome per command
        if status != "ok":
            counts[status] += 1
            if status == "generator_failed":
                failures.append(GeneratorFailure(number=command.number, line=command.line, error=why).model_dump())
            continue
        digest = hashlib.sha256(data).hexdigest()
        if digest in seen:
            counts["duplicates"] += 1
            continue
        seen.add(digest)
        names.append(f"{len(names):03d}")
        origins.append((command.number, command.line))
        (staging / f"{names[-1]}.in").write_bytes(data)
    return {"names": names, "commands": len(commands), **counts, "generator_failures": failures,
            "origins": origins}


def generator_args(command: str) -> list[str]:
    """Arguments of one generator command line, exactly as a shell would pass them (testlib
    seeds from argv), without the generator's name (see ``GeneratorCommand.args``).
    Raises ``CommandSyntaxError`` (a ValueError) for shell syntax the judge does not run."""
    parsed = parse_line(command)
    return [] if parsed is None else parsed.args


def _generate_one(
    command: GeneratorCommand, generator: CompiledProgram, validator: CompiledProgram, ctx: JudgeContext
) -> Generated:
    """The validated input of ``command``, or why it has none."""
    if command.error is not None:  # never run: what a shell would do differs
        return Generated("generator_failed", why=command.error)
    tool_limits = RunLimits(
        wall_s=ctx.limits.reference_time_limit_s,
        memory_mb=TOOL_MEMORY_MB,
        output_bytes=ctx.limits.output_mb << 20,
        file_size_mb=ctx.limits.output_mb,
        stack_mb=generator.stack_mb(TOOL_MEMORY_MB),
    )
    generated = ctx.run(generator.argv(TOOL_MEMORY_MB, command.args), limits=tool_limits, mounts=[generator.mount()])
    if not generated.ok:
        return Generated("generator_failed", why=f"generator failed: {_tail(generated)}")
    validated = ctx.run(
        validator.argv(TOOL_MEMORY_MB), limits=tool_limits, stdin=generated.stdout, mounts=[validator.mount()]
    )
    if not validated.ok:
        log.debug("validator rejected %r: %s", command.line, _tail(validated))
        return Generated("rejected")
    return Generated("ok", generated.stdout)


# -- reference answers -----------------------------------------------------------------------------


def run_reference(language: Language, code: str, tests: TestSet, ctx: JudgeContext) -> ReferenceRun:
    """The original's answers and times on ``tests`` (once per original program and test set)."""
    spec = language_spec(language)
    key = ctx.cache.key(
        "reference",
        language=language,
        code=code,
        tests=tests.key,
        toolchain=ctx.toolchain.language_id(language),
        wall_s=ctx.limits.reference_time_limit_s,
        memory_mb=ctx.limits.memory_mb,
        memory_used=ctx.sandbox.counts_memory,  # memory counted as used (a cgroup) or as address space
        output_mb=ctx.limits.output_mb,
        python=ctx.interpreter_path(spec),
        # Every run's environment (PYTHONHASHSEED, a runtime's GODEBUG...): the answers depend on it. The key's
        # name is older than languages with a runtime environment; renaming it would drop every cached answer.
        python_env=spec.run_env() or None,
    )
    directory = ctx.cache.get_dir(key)
    if directory is None:
        directory = _run_reference(language, code, tests, key, ctx)
    manifest = json.loads((directory / REFERENCE_MANIFEST).read_text())
    if "compile_error" in manifest:
        raise ProblemError(ProblemErrorKind.ORIGINAL_COMPILE_ERROR, manifest["compile_error"])
    reference = ReferenceRun.model_validate({**manifest, "directory": directory})
    if not reference.tests:
        raise ProblemError(
            ProblemErrorKind.ORIGINAL_FAILS_ALL, f"the original failed all {len(tests.names)} tests: {manifest['why']}"
        )
    return reference


def _run_reference(language: Language, code: str, tests: TestSet, key: str, ctx: JudgeContext) -> Path:
    outcome = compile_cached(language, code, ctx)
    with work_dir(ctx.scratch, "reference-") as tmp:
        staging = Path(tmp)
        if outcome.program is None:
            manifest: dict[str, object] = {"compile_error": outcome.error or "", "tests": []}
        else:
            manifest = _answer_tests(outcome.program, tests, staging, ctx)
        (staging / REFERENCE_MANIFEST).write_text(json.dumps(manifest))
        return ctx.cache.put_dir(key, staging)


def _answer_tests(program: CompiledProgram, tests: TestSet, staging: Path, ctx: JudgeContext) -> dict[str, object]:
    address_space, resident = run_memory(program, ctx)
    limits = RunLimits(
        wall_s=ctx.limits.reference_time_limit_s,
        memory_mb=address_space,
        resident_mb=resident,
        output_bytes=ctx.limits.output_mb << 20,
        file_size_mb=ctx.limits.output_mb,
        stack_mb=program.stack_mb(ctx.limits.memory_mb),
    )

    def answer(name: str) -> RunResult:
        return ctx.run(
            program.argv(ctx.limits.memory_mb),
            limits=limits,
            stdin=tests.input_path(name),
            mounts=[program.mount()],
            env=program.env(),
        )

    kept: list[dict[str, object]] = []
    why = ""
    for name, result in zip(tests.names, ctx.map(answer, tests.names), strict=True):
        if not result.ok:
            why = why or f"test {name}: {_tail(result)}"
            continue
        (staging / f"{name}.ans").write_bytes(result.stdout)
        kept.append({"name": name, "wall_s": result.wall_s, "cpu_s": result.cpu_s})
    return {"tests": kept, "failed": len(tests.names) - len(kept), "why": why}


# -- checker self-check ----------------------------------------------------------------------------


def checker_argv(checker: CompiledProgram, name: str, output: str = OUTPUT_FILE) -> list[str]:
    """``checker input output answer`` for test ``name`` (``output``: a path in the work dir)."""
    return checker.argv(TOOL_MEMORY_MB, [f"{TESTS_DIR}/{name}.in", output, f"{ANSWERS_DIR}/{name}.ans"])


def checker_mounts(checker: CompiledProgram, tests: TestSet, reference: ReferenceRun) -> list[Mount]:
    return [
        checker.mount(),
        Mount(src=tests.directory, dst=TESTS_DIR),
        Mount(src=reference.directory, dst=ANSWERS_DIR),
    ]


def checker_limits(checker: CompiledProgram, ctx: JudgeContext) -> RunLimits:
    return RunLimits(
        wall_s=ctx.limits.reference_time_limit_s,
        memory_mb=TOOL_MEMORY_MB,
        output_bytes=1 << 20,
        file_size_mb=ctx.limits.output_mb,
        stack_mb=checker.stack_mb(TOOL_MEMORY_MB),
    )


def verify_checker(checker: CompiledProgram, tests: TestSet, reference: ReferenceRun, ctx: JudgeContext) -> None:
    """The checker must accept the original's answer as output (cached per checker and answers)."""
    key = ctx.cache.key("checker-check", checker=checker.artifact_dir.name, answers=reference.directory.name)
    verdict = ctx.cache.get_json(key)
    if verdict is None:
        name = reference.tests[0].name
        result = ctx.run(checker_argv(checker, name), limits=checker_limits(checker, ctx),
                         mounts=checker_mounts(checker, tests, reference),
                         files={OUTPUT_FILE: reference.answer_path(name).read_bytes()})
        verdict = {"ok": result.ok, "why": "" if result.ok else f"test {name}: {_tail(result)}"}
        if not result.timed_out:  # a timeout may be the machine's load
            ctx.cache.put_json(key, verdict)
    if not verdict["ok"]:
        raise ProblemError(ProblemErrorKind.CHECKER_REJECTS_REFERENCE,
                           f"the checker does not accept the original's own answer: {verdict['why']}")


def _tail(result: RunResult, limit: int = 300) -> str:
    how = "timed out" if result.timed_out else f"exit {result.exit_code}, signal {result.signal}"
    text = result.stderr.decode("utf-8", "replace").strip()[-limit:]
    return f"{how}: {text}" if text else how
