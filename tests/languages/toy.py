"""A language no package holds, for tests of the registry and of its readers."""

from __future__ import annotations

from pathlib import Path

from linteval_ray.languages import CompileCommand, CompileRequest, LanguageSpec, RunRequest
from linteval_ray.validate.lint.base import Linter, LinterSetup, LintOutcome
from linteval_ray.validate.lint.directives import SuppressionRules


def _compile(request: CompileRequest) -> CompileCommand:
    return CompileCommand(source="main.toy", argv=("toyc", "main.toy"), entry="main")


def _run(request: RunRequest) -> list[str]:
    return [f"{request.program_dir}/{request.entry}", *request.args]


class ToyLint(Linter):
    tool = "toylint"
    adapter_version = "1"
    file_name = "main.toy"

    @classmethod
    def create(cls, setup: LinterSetup) -> ToyLint:
        raise NotImplementedError("the toy language has no linter")

    def lint_each(self, codes: list[str]) -> list[LintOutcome]:
        raise NotImplementedError("the toy language has no linter")


def _derive(checks: set[str], base: Path, tools: object) -> str:
    raise NotImplementedError("the toy language has no linter")


TOY = LanguageSpec(
    name="toy",
    display_name="Toy",
    prompt_fence_tag="toy",
    fence_tags=frozenset({"toy"}),
    bare_code_test="not_prose",
    source_file="main.toy",
    linter=ToyLint,
    linter_name="ToyLint",
    lint_config="toylint.cfg",
    profiles_dir=Path(__file__).with_name("toy-profiles"),
    alert_families={},
    suppressions=SuppressionRules(find=lambda code: []),
    derive_config=_derive,
    tools=(),
    compile_command=_compile,
    run_argv=_run,
)
