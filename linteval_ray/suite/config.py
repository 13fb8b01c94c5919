"""``SuiteConfig``: a test-suite quality run (``linteval-ray suite``), as typed settings.

A run judges every solution of the solution pools (``pools``) against the tests of its problem in
the test source (``tests``) and reports how often the tests accept correct solutions (TPR) and
reject incorrect ones (TNR). Settings marked ``NEUTRAL`` change no result row (config/section.py):
the rest, with the identities of the test source and the pools, make the run's fingerprint, which a
resume must match.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator

from linteval_ray.config import RayConfig, StorageConfig, TaskConfig, ValidationConfig
from linteval_ray.config.section import NEUTRAL, Section
from linteval_ray.languages.registry import judge_only_languages, language_names
from linteval_ray.schema.record import Language
from linteval_ray.suite.presets import PRESET

Python2 = Literal["python2", "python3"]


class SuiteSettings(Section):
    """How solutions are judged and cut into units of work."""

    stop_at_first_failure: bool = Field(
        default=False, description="stop judging a solution at its first failing test (a rejected solution needs "
        "one): the verdict is the same, fewer tests are run and reported (failed_tests lists those run)")
    python2: Python2 = Field(
        default="python2", description="how solutions labelled Python 2 are judged: 'python2' (Python 2.7, "
        "installed by `linteval-ray toolchain install` where the platform allows) or 'python3' (as the published "
        "harness ran them); the compat profile always runs them as Python 3")
    python2_also_as_python3: bool = Field(
        default=True, description="judge every Python 2 solution on Python 3 too (its verdict there in the row's "
        "as_python3): metrics.json reports how TPR and TNR change when Python 2 runs as Python 3")
    cpp_dialects: list[str] = Field(
        default_factory=lambda: ["gnu++11", "gnu++98"], description="g++ -std= dialects a C++ solution is "
        "compiled as, in order, when it does not compile as C++17 (gets, register, ... were removed): the row "
        "says which compiled it. Empty: C++17 only (strict profile; compat compiles as the published harness)")
    max_solution_kb: int = Field(default=256, ge=1, description="a longer solution is an invalid_input row "
                                 "(Codeforces accepts 64 KB)")
    kept_code_kb: int = Field(default=64, ge=0, description="code kept in the rows of misjudged solutions (a "
                              "correct one rejected, an incorrect one accepted), for the verifier cards")
    # Units are sized by bytes of code first: a unit is a block of Ray Data's stream, and the driver keeps ~10 KB
    # of Ray Data's statistics per block (bench/README.md): 10^7 solutions of ~1.5 KB make ~4,000 units.
    unit_mb: int = Field(default=4, ge=1, description="a unit of work (one validation call, one result shard; resume "
                         "skips whole units) ends once its solutions hold this many MB of code")
    unit_solutions: int = Field(default=2048, ge=1, description="... or once it holds this many solutions")


class SuiteConfig(Section):
    """A whole test-suite quality run."""

    run_name: Annotated[str | None, NEUTRAL] = Field(default=None, description="default: suite-<time>")
    output: Annotated[str | None, NEUTRAL] = Field(
        default=None, description="run folder: local path, s3://, gs:// (default ./runs/<run_name>)")
    # Where they are is neutral: what they hold is fingerprinted (their identities, load/identity.py).
    tests: Annotated[list[str], NEUTRAL] = Field(
        default_factory=lambda: [PRESET], min_length=1,
        description="test sources, in order (a problem named twice: the first wins): presets "
        "(codecontests-o:test, suite:bundled, ...) or JSONL/Parquet URLs of a task's rows (a glob for several files)")
    pools: Annotated[list[str], NEUTRAL] = Field(
        default_factory=lambda: [PRESET], min_length=1,
        description="solution pools: deepmind/code_contests rows (name, solutions, incorrect_solutions) or flat rows "
        "(problem, language, code, label), JSONL or Parquet, local, s3://, gs:// or hf:// (a glob for several files)")
    task: TaskConfig = Field(default_factory=TaskConfig, description="the test source's task and its options "
                             "(codecontests-o: judge strict or compat, limits_url, ...)")
    languages: list[str] | None = Field(default=None, description="judge only these languages (cpp, py3, py2, java)")

    @field_validator("languages")
    @classmethod
    def _judged_languages(cls, value: list[str] | None) -> list[str] | None:
        """Each a language the judge runs (a registered one, or a judge-only one: Python 2)."""
        judged = [*language_names(), *(spec.name for spec in judge_only_languages())]
        for name in value or ():
            if name not in judged:
                raise ValueError(f"unknown language {name!r}: the suite judges {', '.join(judged)}")
        return value
    problem_ids: list[str] | None = Field(default=None, description="judge only the solutions of these problems")
    limit: int | None = Field(default=None, ge=1, description="at most this many solutions of each pool file")
    suite: SuiteSettings = Field(default_factory=SuiteSettings)
    storage: Annotated[StorageConfig, NEUTRAL] = Field(default_factory=StorageConfig)
    validation: ValidationConfig = Field(default_factory=ValidationConfig)
    ray: Annotated[RayConfig, NEUTRAL] = Field(default_factory=RayConfig)


RECORD_LANGUAGES: tuple[Language, ...] = ("cpp", "py3", "java")  # a test source's records (py2 judges by py3's)
