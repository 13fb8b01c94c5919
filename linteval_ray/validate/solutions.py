"""Judging a given solution on a prepared problem, as a test suite's quality run does (``linteval-ray suite``).

Two things set it apart from judging a model's revision, both decided here for every task:

- **The dialect an old C++ solution needs.** Human solutions span two decades of judges: ``gets``
  and ``register`` were removed from C++ (C++14, C++17), so correct old code does not compile as
  C++17. A C++ solution is compiled as C++17 first; only when that fails is it compiled again as
  each of ``dialects`` in order (``g++ -std=gnu++11``, then ``gnu++98``: the dialects of the
  judges these solutions were accepted or rejected on), and the first that compiles it judges it
  (``Judgement.judged_as`` names it). A solution no dialect compiles is a compile error (the
  C++17 compiler's message). A fallback changes only what the compiler accepts, never a program's
  behaviour under the tests, so an incorrect solution still has to be caught by the tests.
- **Stopping at the first failing test** (optional): a rejected solution needs one failing test.
  Tests then run in test order, a few at a time (``STOP_CHUNK``, or the context's jobs if more),
  and none after the chunk where one fails; the verdict (the first failing test's) is the one the
  full run gives, fewer tests are run and reported.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from linteval_ray.languages.base import CompileCommand, CompileRequest, LanguageSpec
from linteval_ray.languages.registry import UnknownLanguageError, language, register_variant
from linteval_ray.schema.result import Verdict
from linteval_ray.validate.judge.compile import CompiledProgram, CompileOutcome, compile_program
from linteval_ray.validate.judge.context import JudgeContext
from linteval_ray.validate.judge.failure import first_failure
from linteval_ray.validate.judge.problem import PreparedProblem
from linteval_ray.validate.judge.records import OutputChecks, TestRecord
from linteval_ray.validate.judge.run import JudgeResult, decide_verdict, judged_tests, run_tests
from linteval_ray.validate.scratch import work_dir

C_PLUS_PLUS = "cpp"
STOP_CHUNK = 4  # tests run at once when stopping at the first failure: at most this many after it
_variants_lock = threading.Lock()


@dataclass(frozen=True)
class Judgement:
    result: JudgeResult
    judged_as: str  # the language or dialect variant that compiled it (``cpp+gnu++11``)


def dialect_variant(dialect: str) -> str:
    """The registered variant of C++ compiled with ``-std=<dialect>`` (registered on first use)."""
    name = f"{C_PLUS_PLUS}+{dialect}"
    with _variants_lock:
        try:
            return language(name).name
        except UnknownLanguageError:
            pass
        base = language(C_PLUS_PLUS)
        flags = tuple(f"-std={dialect}" if flag.startswith("-std=") else flag for flag in base.compile_flags)
        # No precompiled header: it is built for C++17 (g++ would ignore it), and a fallback is rare.
        register_variant(dataclasses.replace(base, name=name, compile_command=_with_std(base, dialect),
                                             compile_flags=flags, precompiled_headers=None))
    return name


def _with_std(base: LanguageSpec, dialect: str) -> Callable[[CompileRequest], CompileCommand]:
    def compile_command(request: CompileRequest) -> CompileCommand:
        command = base.compile_command(request)
        argv = tuple(f"-std={dialect}" if arg.startswith("-std=") else arg for arg in command.argv)
        return dataclasses.replace(command, argv=argv)
    return compile_command


def compiled(language_name: str, code: str, ctx: JudgeContext, folder: Path, dialects: tuple[str, ...],
             ) -> tuple[CompileOutcome, str]:
    """``code`` compiled as ``language_name``, else (C++) as the first of ``dialects`` that compiles it;
    the outcome (the first compiler's error when none does) and what compiled it."""
    outcome = compile_program(language_name, code, ctx, folder / "prog")
    if outcome.program is not None or outcome.interrupted or language_name != C_PLUS_PLUS:
        return outcome, language_name
    spent = outcome.seconds
    for index, dialect in enumerate(dialects):
        variant = dialect_variant(dialect)
        fallback = compile_program(variant, code, ctx, folder / f"prog-{index}")
        spent += fallback.seconds
        if fallback.program is not None:
            return fallback.model_copy(update={"seconds": spent}), variant
    return outcome.model_copy(update={"seconds": spent}), language_name


def judge_code(language_name: str, code: str, problem: PreparedProblem, ctx: JudgeContext, *,
               checks: Callable[[], OutputChecks | None], stop_at_first_failure: bool = False,
               dialects: tuple[str, ...] = ()) -> Judgement:
    """Compile ``code`` once (see ``compiled``) and judge it on ``problem``'s tests; ``checks`` makes
    the output checks of one run of tests (None: the problem's checker)."""
    count = len(problem.reference.tests)
    with work_dir(ctx.scratch, "solution-") as tmp:
        outcome, judged_as = compiled(language_name, code, ctx, Path(tmp), dialects)
        if outcome.program is None:
            if outcome.interrupted:  # the machine's load, not the code: retried by a rerun
                raise RuntimeError(f"compiling the solution was interrupted: {outcome.error or 'timed out'}")
            result = JudgeResult(compile_ok=False, verdict=Verdict.COMPILE_ERROR, detail=outcome.error,
                                 tests_generated=count, tests_failed=count, compile_s=outcome.seconds)
            return Judgement(result=result, judged_as=judged_as)
        if stop_at_first_failure:
            result = _until_first_failure(outcome.program, problem, ctx, checks)
        else:
            result = judged_tests(outcome.program, problem, ctx, checks())
    return Judgement(result=result.model_copy(update={"compile_s": outcome.seconds, "tests_generated": count}),
                     judged_as=judged_as)


def _until_first_failure(program: CompiledProgram, problem: PreparedProblem, ctx: JudgeContext,
                         checks: Callable[[], OutputChecks | None]) -> JudgeResult:
    """The tests in order, ``STOP_CHUNK`` (or ``ctx.jobs``) at a time, none after a chunk with a failure."""
    started = time.monotonic()
    tests, step = problem.reference.tests, max(STOP_CHUNK, ctx.jobs)
    records: list[TestRecord] = []
    for start in range(0, len(tests), step):
        part = problem.model_copy(update={"reference": problem.reference.model_copy(
            update={"tests": tests[start:start + step]})})
        ran = run_tests(program, part, ctx, checks())
        records += ran
        if any(record.verdict != Verdict.PASSED for record in ran):
            break
    verdict, detail = decide_verdict(records)
    return JudgeResult(
        compile_ok=True, verdict=verdict, detail=detail,
        tests_passed=sum(r.verdict == Verdict.PASSED for r in records),
        tests_failed=sum(r.verdict != Verdict.PASSED for r in records),
        tests_skipped=sum(r.verdict is None for r in records), tests=records,
        first_failure=first_failure(records, problem) if verdict != Verdict.PASSED else None,
        tests_s=time.monotonic() - started)
