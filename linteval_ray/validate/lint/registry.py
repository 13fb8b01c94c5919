"""``Linters``: one warm linter per language, of the adapter class the language's spec names."""

from __future__ import annotations

from linteval_ray.languages.registry import language as language_spec
from linteval_ray.schema.record import LintMessage
from linteval_ray.toolchain.discover import Toolchain
from linteval_ray.validate.lint.base import Linter, LinterSettings, LinterSetup, LintOutcome
from linteval_ray.validate.lint.profiles import LintProfile, load_profile
from linteval_ray.validate.sandbox.base import Sandbox


class Linters:
    """Lints batches of source per language; linters start on first use and stay warm until ``close``."""

    def __init__(self, toolchain: Toolchain, *, profile: LintProfile | None = None, jobs: int = 2,
                 timeout_s: float = 120.0, cpu_s: float = 30.0, memory_mb: int = 4096,
                 sandbox: Sandbox | None = None) -> None:
        self.toolchain = toolchain
        self.sandbox = sandbox  # a linter that opens files the source names runs in it (clang-tidy)
        self.profile = profile or load_profile()
        self.jobs = jobs
        self.timeout_s = timeout_s
        self.cpu_s = cpu_s
        self.memory_mb = memory_mb
        self._linters: dict[str, Linter] = {}

    def linter(self, language: str) -> Linter:
        """The warm linter of ``language``; ``UnknownLanguageError`` (a ValueError) for an unknown one."""
        if language not in self._linters:
            self._linters[language] = self._make(language)
        return self._linters[language]

    def _make(self, language: str) -> Linter:
        spec = language_spec(language)
        settings = LinterSettings(jobs=self.jobs, timeout_s=self.timeout_s, cpu_s=self.cpu_s,
                                  memory_mb=self.memory_mb, sandbox=self.sandbox)
        return spec.linter.create(LinterSetup(file_name=spec.source_file, config=self.profile.file(language),
                                              tools=self.toolchain.tool_paths(), settings=settings))

    def lint(self, language: str, codes: list[str]) -> list[list[LintMessage]]:
        """Messages per code, in order; raises ``LintError`` if the linter failed on any of them."""
        return self.linter(language).lint_many(codes)

    def lint_each(self, language: str, codes: list[str]) -> list[LintOutcome]:
        """Messages or a ``LintError`` per code: one hostile input does not fail its batch mates."""
        return self.linter(language).lint_each(codes)

    def config_id(self, language: str) -> str:
        """The profile's identity for ``language``: cached lint results of its code depend on it."""
        return self.profile.config_id_of(language)

    def close(self) -> None:
        for linter in self._linters.values():
            linter.close()
        self._linters.clear()

    def __enter__(self) -> Linters:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
