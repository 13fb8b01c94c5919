"""The naive harness: LintEval validation the way a simple sequential script does it.

Per sample, with nothing shared between samples: a fresh linter process per file
(clang-tidy, ``python -m pylint``, a PMD JVM), the three testlib tools compiled with g++,
every generator command and validator run, the original compiled and run on every test
for the answers, the revision compiled and run, the checker per test. No cache, no
precompiled headers, no batching, one thing at a time. It uses the same sandbox and the
same limits as the pipeline, so the benchmark compares work, not isolation; and the
same verdict rules, so the outcomes must be identical (tests/bench/test_equivalence.py).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import tempfile
from pathlib import Path

from pydantic import BaseModel

from bench.cpu import StageMeter
from linteval_ray.config import TestLimits
from linteval_ray.languages.cpp.clang_tidy import ClangTidy, ClangTidyConfig
from linteval_ray.languages.java.pmd import Pmd
from linteval_ray.languages.py3.pylint import Pylint
from linteval_ray.languages.py3.pylint_worker import TOOL_FAILURES
from linteval_ray.prompt.extract import extract_code
from linteval_ray.schema.record import Language, LintEvalRecord, LintMessage
from linteval_ray.schema.result import Verdict
from linteval_ray.toolchain import Toolchain
from linteval_ray.validate.cache import ContentCache
from linteval_ray.validate.judge import (
    CompiledProgram,
    JudgeContext,
    PreparedProblem,
    ProblemError,
    ProblemErrorKind,
    ReferenceRun,
    TestSet,
    compile_program,
)
from linteval_ray.validate.judge.commands import parse_generator_cmd
from linteval_ray.validate.judge.limits import run_memory
from linteval_ray.validate.judge.problem import TOOL_MEMORY_MB, generator_args
from linteval_ray.validate.judge.run import decide_verdict, run_tests
from linteval_ray.validate.lint.base import LintError, tail
from linteval_ray.validate.lint.profiles import LintProfile, load_profile
from linteval_ray.validate.sandbox import RunLimits, Sandbox


class NaiveOutcome(BaseModel):
    """What the naive harness concludes for one sample (the fields the pipeline must match)."""

    sample_id: str
    language: Language
    status: str  # evaluated | invalid_problem | infra_error
    verdict: str | None = None
    tests_generated: int = 0
    tests_passed: int = 0
    tests_failed: int = 0
    tests_dropped: int = 0
    original_messages: list[LintMessage] = []
    revised_messages: list[LintMessage] = []
    error: str | None = None


def reference_revision(record: LintEvalRecord) -> str | None:
    """The revision the replay backend evaluates: extracted from the response, else the column."""
    if record.raw_response:
        return extract_code(record.raw_response, record.language)
    return record.revised_code or None


class FreshLinters:
    """One new linter process per file (the adapters' parsers, none of their warm state)."""

    def __init__(self, toolchain: Toolchain, profile: LintProfile | None = None, timeout_s: float = 120.0) -> None:
        profile = profile or load_profile()
        self.toolchain = toolchain
        self.timeout_s = timeout_s
        self.clang_tidy = ClangTidy(toolchain.path("clang_tidy"), ClangTidyConfig.load(profile.file("cpp")),
                                    file_name="sol.cpp", jobs=1, timeout_s=timeout_s)
        self.pylint = Pylint(toolchain.python, profile.file("py3"), file_name="sol.py", timeout_s=timeout_s)
        self.pmd = Pmd(toolchain.path("java"), Path(toolchain.path("pmd")), profile.file("java"), file_name="Main.java",
                       timeout_s=timeout_s)

    def lint(self, language: Language, code: str) -> list[LintMessage] | LintError:
        if language == "cpp":
            return self.clang_tidy.lint_one(code)
        if language == "java":
            return self.pmd.lint_fresh(code)
        return self._pylint_fresh(code)

    def _pylint_fresh(self, code: str) -> list[LintMessage] | LintError:
        with tempfile.TemporaryDirectory(prefix="naive-pylint-") as tmp:
            Path(tmp, "sol.py").write_text(code, encoding="utf-8", errors="surrogatepass")
            argv = [self.toolchain.python, "-m", "pylint", "--rcfile", str(self.pylint.rcfile),
                    "--output-format=json2", "sol.py"]
            try:
                proc = subprocess.run(argv, cwd=tmp, capture_output=True, timeout=self.timeout_s, check=False)
            except subprocess.TimeoutExpired:
                return LintError("pylint", f"timed out after {self.timeout_s:g} s")
        try:
            messages = json.loads(proc.stdout)["messages"]
        except (ValueError, KeyError):
            return LintError("pylint", f"exit {proc.returncode}: {tail(proc.stderr)}")
        if failures := [m for m in messages if m["symbol"] in TOOL_FAILURES]:
            return LintError("pylint", f"pylint failed: {failures[0]['symbol']}")
        return [self.pylint.message(m, "sol") for m in messages]


class NaiveHarness:
    """Evaluates samples one after the other; ``meter`` collects CPU per stage and language."""

    def __init__(self, toolchain: Toolchain, sandbox: Sandbox, limits: TestLimits | None = None,
                 python: str = "/usr/bin/python3") -> None:
        self.toolchain = toolchain
        self.sandbox = sandbox
        self.limits = limits or TestLimits()
        self.python = python
        self.linters = FreshLinters(toolchain, timeout_s=self.limits.lint_timeout_s)
        self.meter = StageMeter()

    def evaluate(self, record: LintEvalRecord, revision: str | None) -> NaiveOutcome:
        language = record.language
        outcome = NaiveOutcome(sample_id=record.sample_id, language=language, status="evaluated")
        with self.meter.measure("lint", language):
            original = self.linters.lint(language, record.code)
            revised = self.linters.lint(language, revision) if revision is not None else []
        for messages in (original, revised):
            if isinstance(messages, LintError):
                return outcome.model_copy(update={"status": "infra_error", "error": str(messages)})
        outcome.original_messages, outcome.revised_messages = original, revised
        if revision is None:
            outcome.verdict = Verdict.EXTRACTION_FAILED.value
            return outcome
        with tempfile.TemporaryDirectory(prefix="naive-") as tmp:
            ctx = self._context(Path(tmp))
            try:
                problem = self._prepare(record, ctx, Path(tmp))
            except ProblemError as exc:
                return outcome.model_copy(update={"status": "invalid_problem", "error": str(exc)})
            self._judge(outcome, revision, problem, ctx, Path(tmp) / "revision")
        return outcome

    def _context(self, scratch: Path) -> JudgeContext:
        # jobs=1: sequential runs; the cache is never consulted by the steps used here.
        return JudgeContext(sandbox=self.sandbox, toolchain=self.toolchain,
                            cache=ContentCache(None, scratch / "unused-cache"), scratch=scratch / "runs",
                            limits=self.limits, jobs=1, python=self.python)

    def _compile(self, language: Language, code: str, ctx: JudgeContext, out_dir: Path, *, tools: bool = False):
        with self.meter.measure("compile", language):  # naive: no precompiled header, no compiler archive
            return compile_program(language, code, ctx, out_dir, with_testlib=tools, prebuilt=False)

    # -- the problem: tools, tests, answers ------------------------------------------------------

    def _prepare(self, record: LintEvalRecord, ctx: JudgeContext, work: Path) -> PreparedProblem:
        tools: dict[str, CompiledProgram] = {}
        for name, kind in (("checker", ProblemErrorKind.CHECKER_COMPILE_ERROR),
                           ("generator", ProblemErrorKind.GENERATOR_COMPILE_ERROR),
                           ("validator", ProblemErrorKind.VALIDATOR_COMPILE_ERROR)):
            compiled = self._compile("cpp", getattr(record, name), ctx, work / name, tools=True)
            if compiled.program is None:
                raise ProblemError(kind, compiled.error or "")
            tools[name] = compiled.program
        with self.meter.measure("tests", record.language):
            tests = self._generate(record, tools["generator"], tools["validator"], ctx, work / "tests")
        original = self._compile(record.language, record.code, ctx, work / "original")
        if original.program is None:
            raise ProblemError(ProblemErrorKind.ORIGINAL_COMPILE_ERROR, original.error or "")
        with self.meter.measure("tests", record.language):
            reference = self._answer(original.program, tests, ctx, work / "answers")
        return PreparedProblem(checker=tools["checker"], tests=tests, reference=reference)

    def _generate(self, record: LintEvalRecord, generator: CompiledProgram, validator: CompiledProgram,
                  ctx: JudgeContext, directory: Path) -> TestSet:
        directory.mkdir()
        limits = self._tool_limits()
        names: list[str] = []
        seen: set[str] = set()
        counts = {"generator_failed": 0, "rejected": 0, "duplicates": 0}
        commands = parse_generator_cmd(record.generator_cmd)
        for command in commands:
            try:
                args = generator_args(command.line)
            except ValueError:
                counts["generator_failed"] += 1
                continue
            made = ctx.run(generator.argv(TOOL_MEMORY_MB, args), limits=limits, mounts=[generator.mount()])
            if not made.ok:
                counts["generator_failed"] += 1
                continue
            checked = ctx.run(validator.argv(TOOL_MEMORY_MB), limits=limits, stdin=made.stdout,
                              mounts=[validator.mount()])
            if not checked.ok:
                counts["rejected"] += 1
                continue
            digest = hashlib.sha256(made.stdout).hexdigest()
            if digest in seen:
                counts["duplicates"] += 1
                continue
            seen.add(digest)
            names.append(f"{len(names):03d}")
            (directory / f"{names[-1]}.in").write_bytes(made.stdout)
        if not names:
            raise ProblemError(ProblemErrorKind.NO_VALID_TESTS, f"{len(commands)} commands: {counts}")
        return TestSet(key="naive", directory=directory, names=names, commands=len(commands), **counts)

    def _answer(self, program: CompiledProgram, tests: TestSet, ctx: JudgeContext, directory: Path) -> ReferenceRun:
        directory.mkdir()
        address_space, resident = run_memory(program, ctx)  # the judge's memory rule for the original
        limits = RunLimits(wall_s=self.limits.reference_time_limit_s, memory_mb=address_space, resident_mb=resident,
                           output_bytes=self.limits.output_mb << 20, file_size_mb=self.limits.output_mb)
        kept = []
        for name in tests.names:
            result = ctx.run(program.argv(self.limits.memory_mb), limits=limits, stdin=tests.input_path(name),
                             mounts=[program.mount()], env=program.env())
            if result.ok:
                (directory / f"{name}.ans").write_bytes(result.stdout)
                kept.append({"name": name, "wall_s": result.wall_s, "cpu_s": result.cpu_s})
        if not kept:
            raise ProblemError(ProblemErrorKind.ORIGINAL_FAILS_ALL, f"the original failed all {len(tests.names)} tests")
        return ReferenceRun(directory=directory, tests=kept, failed=len(tests.names) - len(kept))

    def _tool_limits(self) -> RunLimits:
        return RunLimits(wall_s=self.limits.reference_time_limit_s, memory_mb=TOOL_MEMORY_MB,
                         output_bytes=self.limits.output_mb << 20, file_size_mb=self.limits.output_mb)

    # -- the revision ----------------------------------------------------------------------------

    def _judge(self, outcome: NaiveOutcome, revision: str, problem: PreparedProblem, ctx: JudgeContext,
               out_dir: Path) -> None:
        outcome.tests_generated = problem.tests_generated
        outcome.tests_dropped = problem.tests_dropped
        compiled = self._compile(outcome.language, revision, ctx, out_dir)
        if compiled.program is None:
            outcome.verdict = Verdict.COMPILE_ERROR.value
            outcome.tests_failed = len(problem.reference.tests)
            return
        with self.meter.measure("tests", outcome.language):
            records = run_tests(compiled.program, problem, ctx)
        verdict, _detail = decide_verdict(records)
        outcome.verdict = verdict.value
        outcome.tests_passed = sum(r.verdict == Verdict.PASSED for r in records)
        outcome.tests_failed = len(records) - outcome.tests_passed
