"""The judge: compile programs, build testlib tests, run revisions, classify verdicts.

``prepare_problem`` does the model-independent, cached work for a record (tools, tests,
reference answers); ``judge_revision`` compiles and runs one revision against it.
"""

from linteval_ray.validate.judge.compile import CompiledProgram, CompileOutcome, compile_cached, compile_program
from linteval_ray.validate.judge.context import JudgeContext
from linteval_ray.validate.judge.problem import (
    PreparedProblem,
    ProblemError,
    ProblemErrorKind,
    ReferenceRun,
    TestSet,
    prepare_problem,
)
from linteval_ray.validate.judge.records import TestRecord
from linteval_ray.validate.judge.run import JudgeResult, judge_revision

__all__ = [
    "CompileOutcome",
    "CompiledProgram",
    "JudgeContext",
    "JudgeResult",
    "PreparedProblem",
    "ProblemError",
    "ProblemErrorKind",
    "ReferenceRun",
    "TestRecord",
    "TestSet",
    "compile_cached",
    "compile_program",
    "judge_revision",
    "prepare_problem",
]
