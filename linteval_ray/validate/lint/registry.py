"""``Linters``: one warm linter per language (cpp -> clang-tidy, py3 -> pylint, java -> PMD)."""

from __future__ import annotations

from linteval_ray.schema.record import Language, LintMessage
from linteval_ray.toolchain import Toolchain
from linteval_ray.validate.lint.base import Linter, LintOutcome
from linteval_ray.validate.lint.clang_tidy import ClangTidy, ClangTidyConfig
from linteval_ray.validate.lint.pmd import Pmd
from linteval_ray.validate.lint.profiles import LintProfile, load_profile
from linteval_ray.validate.lint.pylint import Pylint
from linteval_ray.validate.sandbox.base import Sandbox


class Linters:
    """Lints batches of source per language; linters start on first use and stay warm until ``close``."""

    def __init__(self, toolchain: Toolchain, *, profile: LintProfile | None = None, jobs: int = 2,
                 timeout_s: float = 120.0, sandbox: Sandbox | None = None) -> None:
        self.toolchain = toolchain
        self.sandbox = sandbox  # clang-tidy runs in it (it reads files the source names)
        self.profile = profile or load_profile()
        self.jobs = jobs
        self.timeout_s = timeout_s
        self._linters: dict[str, Linter] = {}

    def linter(self, language: Language) -> Linter:
        if language not in self._linters:
            self._linters[language] = self._make(language)
        return self._linters[language]

    def _make(self, language: Language) -> Linter:
        tc, profile = self.toolchain, self.profile
        if language == "cpp":
            config = ClangTidyConfig.load(profile.file("clang-tidy.yaml"))
            return ClangTidy(tc.clang_tidy, config, jobs=self.jobs, timeout_s=self.timeout_s, sandbox=self.sandbox)
        if language == "py3":
            return Pylint(tc.python, profile.file("pylintrc"), timeout_s=self.timeout_s)
        if language == "java":
            return Pmd(tc.java, tc.pmd_home, profile.file("pmd-ruleset.xml"), timeout_s=self.timeout_s)
        raise ValueError(f"no linter for language {language!r}")

    def lint(self, language: Language, codes: list[str]) -> list[list[LintMessage]]:
        """Messages per code, in order; raises ``LintError`` if the linter failed on any of them."""
        return self.linter(language).lint_many(codes)

    def lint_each(self, language: Language, codes: list[str]) -> list[LintOutcome]:
        """Messages or a ``LintError`` per code: one hostile input does not fail its batch mates."""
        return self.linter(language).lint_each(codes)

    def config_id(self) -> str:
        """The profile's identity: cached lint results depend on it."""
        return self.profile.config_id

    def close(self) -> None:
        for linter in self._linters.values():
            linter.close()
        self._linters.clear()

    def __enter__(self) -> Linters:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
