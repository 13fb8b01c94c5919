"""How Python 3 compiles and runs: syntax-checked with ``compile()``, run from source, linted by pylint.

The syntax check runs inside the sandbox too (compiling hostile source can exhaust memory).
The program then runs from source with ``PYTHONHASHSEED=0``: the iteration order of a set or
dict keyed by str depends on the hash seed, so an original printing one would otherwise
answer differently on every run, and a revision is judged under the same seed as the
original's answers. Runs get RLIMIT_STACK = the memory limit.
"""

from __future__ import annotations

from linteval_ray.languages.base import CompileCommand, CompileRequest, RunRequest

SOURCE_FILE = "sol.py"
# str/bytes hashes (set and dict order) the same in every run (see the module docstring).
OUTPUT_ENV = {"PYTHONHASHSEED": "0"}
SYNTAX_CHECK = (
    "import sys\n"
    "src = open(sys.argv[1], 'rb').read()\n"
    "try:\n"
    "    compile(src, sys.argv[1], 'exec')\n"
    "except SyntaxError as e:\n"
    "    sys.exit(f'{e.filename}:{e.lineno}:{e.offset}: {type(e).__name__}: {e.msg}')\n"
    "except ValueError as e:\n"  # e.g. source with NUL bytes
    "    sys.exit(f'{sys.argv[1]}: {e}')\n"
)
INTERPRETER = "python"  # the tool: validation.python, which keys cached compiles and answers


def compile_command(request: CompileRequest) -> CompileCommand:
    return CompileCommand(
        source=SOURCE_FILE, argv=(request.tools[INTERPRETER], "-c", SYNTAX_CHECK, SOURCE_FILE), entry=SOURCE_FILE
    )


def run_argv(request: RunRequest) -> list[str]:
    return [
        request.tools[INTERPRETER],
        f"{request.program_dir}/{request.entry}",
        *request.args,
    ]
