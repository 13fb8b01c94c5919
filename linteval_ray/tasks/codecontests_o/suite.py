"""CodeContests-O as a test suite's source (``linteval-ray suite``): given code judged on a problem's
given tests, as the task judges a model's answer (``judge.py``: the problem's checker, verified on
its expected answers, else the token comparison; its limits; strict or compat), with what a human
solution pool needs besides (``validate/solutions.py``: an old C++ solution's dialect, stopping at
the first failing test).

In the compat profile a solution is compiled and run as the published harness does (``compat.py``),
in no other dialect (the harness compiled every C++ solution as C++17), and a Python 2 solution runs
on Python 3.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from linteval_ray.tasks.base import JudgedSolution, SolutionOptions
from linteval_ray.tasks.codecontests_o.compat import compiled_as
from linteval_ray.tasks.codecontests_o.judge import GivenChecks, ProblemInvalid, Problems
from linteval_ray.tasks.codecontests_o.options import Profile
from linteval_ray.tasks.codecontests_o.record import CodeContestsRecord
from linteval_ray.tasks.codecontests_o.tests import TestsMissing
from linteval_ray.validate.solutions import judge_code

if TYPE_CHECKING:
    from linteval_ray.validate.engine import Validator

PYTHON2, PYTHON3 = "py2", "py3"


class GivenTestsJudge:
    """The task's ``SolutionJudge``: its problems prepared once per worker (``Problems``)."""

    def __init__(self, worker: Validator) -> None:
        self._problems = Problems(worker.judge)

    def judge(self, record_json: str, language: str, code: str, options: SolutionOptions) -> JudgedSolution:
        record = CodeContestsRecord.model_validate_json(record_json)
        started = time.monotonic()
        try:
            problem = self._problems.get(record)
        except ProblemInvalid as exc:
            return JudgedSolution(invalid_problem=str(exc), prepare_s=time.monotonic() - started)
        except TestsMissing:
            raise RuntimeError(f"the tests of problem {record.problem_id!r} ({record.tests_key}) are in no cache "
                               "tier this worker reads: a run on several nodes needs a shared cache tier "
                               "(validation.cache_url, or an output on object storage)") from None
        prepare_s = time.monotonic() - started
        compat = record.judge == Profile.COMPAT
        if compat and language == PYTHON2:  # the published harness ran Python 2 solutions on Python 3
            language = PYTHON3
        judged = judge_code(compiled_as(language) if compat else language, code, problem.prepared, problem.ctx,
                            checks=lambda: GivenChecks(problem, compat),
                            stop_at_first_failure=options.stop_at_first_failure,
                            dialects=() if compat else options.cpp_dialects)
        return JudgedSolution(result=judged.result, judged_as=judged.judged_as, prepare_s=prepare_s)
