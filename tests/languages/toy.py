"""A language no module registers, for tests of the registry and of its readers."""

from __future__ import annotations

from linteval_ray.languages import CompileCommand, CompileRequest, LanguageSpec, RunRequest
from linteval_ray.validate.lint.base import Linter


def _compile(request: CompileRequest) -> CompileCommand:
    return CompileCommand(source="main.toy", argv=("toyc", "main.toy"), entry="main")


def _run(request: RunRequest) -> list[str]:
    return [f"{request.program_dir}/{request.entry}", *request.args]


def _no_linter() -> type[Linter]:
    raise NotImplementedError("the toy language has no linter")


TOY = LanguageSpec(
    name="toy",  # type: ignore[arg-type]  # not in schema.record.Language: tests only
    display_name="Toy",
    prompt_fence_tag="toy",
    fence_tags=frozenset({"toy"}),
    bare_code_test="not_prose",
    source_file="main.toy",
    linter_tool="toylint",
    linter_name="ToyLint",
    linter_class=_no_linter,
    compile_command=_compile,
    run_argv=_run,
)
