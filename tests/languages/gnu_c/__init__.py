"""GNU C, a language defined outside the package with a tool of its own: compiled by GCC's C
compiler (the ``gcc`` row here, not the toolchain's g++), linted by GCC's own warnings in the
sandbox through ``SandboxedLinter``: the adapter is its command and its parser.
``LINTEVAL_RAY_LANGUAGES=tests.languages.gnu_c`` registers it (tests/languages/test_plugin.py)."""

from __future__ import annotations

import json
from pathlib import Path

from linteval_ray.languages.base import CompileCommand, CompileRequest, LanguageSpec, RunRequest
from linteval_ray.schema.record import LintMessage
from linteval_ray.toolchain.locate import OnPath
from linteval_ray.toolchain.probe import VersionCommand
from linteval_ray.toolchain.recipes import AptPackage
from linteval_ray.toolchain.spec import Pin, ToolSpec
from linteval_ray.validate.lint.base import LintError, LinterSetup
from linteval_ray.validate.lint.directives import SuppressionRules
from linteval_ray.validate.lint.sandboxed import SandboxedLinter, ToolRun

SOURCE_FILE = "sol.c"
FLAGS = ("-std=gnu11", "-O2", "-pipe", "-DONLINE_JUDGE")
GCC = ToolSpec(name="gcc", locate=OnPath("gcc"), probe=VersionCommand("-dumpfullversion"),
               pin=Pin("12", major_only=True), install=AptPackage("gcc"))
# GCC's warning options by what they catch (-Wunused-variable -> "unused"), and the paper's category.
FAMILIES = {"unused": "style", "parentheses": "error-prone", "sign-compare": "error-prone",
            "shadow": "refactor", "conversion": "error-prone", "format": "error-prone"}


class GccWarnings(SandboxedLinter):
    tool = "gcc-warnings"
    adapter_version = "1"
    tool_row = "gcc"

    def __init__(self, setup: LinterSetup) -> None:
        super().__init__(setup)
        self.warnings = self.config.read_text().split()  # the profile's file: one warning option a line

    def command(self, file_name: str) -> list[str]:
        return [self.binary, *FLAGS, *self.warnings, "-fsyntax-only", "-fdiagnostics-format=json", file_name]

    def parse(self, run: ToolRun) -> list[LintMessage]:
        try:
            diagnostics = json.loads(run.stderr or b"[]")
        except ValueError:
            raise LintError(self.tool, f"unreadable diagnostics: {run.stderr[:200]!r}") from None
        return [self._message(d) for d in diagnostics if d["locations"]]

    def _message(self, diagnostic: dict[str, object]) -> LintMessage:
        caret = diagnostic["locations"][0]["caret"]  # type: ignore[index]
        option = str(diagnostic.get("option", "")).removeprefix("-W") or "error"
        return LintMessage(tool=self.tool, file=self.file_name, line=caret["line"], column=caret["column"],
                           severity=str(diagnostic["kind"]), message_text=str(diagnostic["message"]),
                           check_name=option, category=option.split("-")[0])


def compile_command(request: CompileRequest) -> CompileCommand:
    include = [arg for folder in request.include_dirs for arg in ("-I", folder)]
    return CompileCommand(source=SOURCE_FILE, argv=(request.tools["gcc"], *FLAGS, *include, "-o", "prog",
                                                    SOURCE_FILE, "-lm"), entry="prog")


def run_argv(request: RunRequest) -> list[str]:
    return [f"{request.program_dir}/{request.entry}", *request.args]


def derive_config(checks: set[str], base: Path, tools: object) -> str:
    return "".join(f"-W{check}\n" for check in sorted(checks))


SPEC = LanguageSpec(
    name="gnu_c", display_name="GNU C", prompt_fence_tag="c", fence_tags=frozenset({"gnu_c"}),
    bare_code_test="not_prose", source_file=SOURCE_FILE,
    linter=GccWarnings, linter_name="GCC's warnings", lint_config="gcc-warnings.txt",
    profiles_dir=Path(__file__).with_name("profiles"), alert_families=FAMILIES,
    suppressions=SuppressionRules(find=lambda code: []), derive_config=derive_config,
    tools=(GCC,), compile_command=compile_command, run_argv=run_argv, stack_at_memory_limit=True, compile_flags=FLAGS,
)
