"""Python 3: syntax-checked and run from source (``commands.py``), linted by pylint (``pylint.py``)."""

from __future__ import annotations

from pathlib import Path

from linteval_ray.languages.base import LanguageSpec, PlanFigures, frozen_env
from linteval_ray.languages.py3 import categories, commands, derive, suppressions, tools
from linteval_ray.languages.py3.pylint import Pylint

SPEC = LanguageSpec(
    name="py3",
    display_name="Python 3",
    prompt_fence_tag="python",
    fence_tags=frozenset({"python", "python3", "py", "py3"}),
    bare_code_test="python_program",
    source_file=commands.SOURCE_FILE,
    linter=Pylint,
    linter_name="pylint",
    lint_config="pylintrc",
    profiles_dir=Path(__file__).with_name("profiles"),
    alert_families=categories.FAMILY_TO_PAPER,
    suppressions=suppressions.RULES,
    derive_config=derive.pylintrc,
    tools=(tools.PYLINT, tools.ASTROID),
    compile_command=commands.compile_command,
    run_argv=commands.run_argv,
    stack_at_memory_limit=True,
    output_env=frozen_env(commands.OUTPUT_ENV),
    interpreter=commands.INTERPRETER,
    plan=PlanFigures(validation_cpu_s=2.0, measured="py3 6.1 s / 2", lite_samples=203),
)
