"""Python 2: a judge-only language (``linteval-ray suite`` judges human solutions written in it).

Never a record's language: no model answers in it and nothing lints it. It is Python 3's spec
(``BASE``) with Python 2.7 (``tools.py``) checking the syntax and running the program from source,
under the same environment (``PYTHONHASHSEED=0``) and limits, made by the registry from the
registered Python 3 (``variant``): a language package imports no other.
"""

from __future__ import annotations

import dataclasses

from linteval_ray.languages.base import CompileCommand, CompileRequest, LanguageSpec, RunRequest
from linteval_ray.languages.py2 import tools

BASE = "py3"
INTERPRETER = "python2"  # the tool row's name: its path keys compiles and answers
SOURCE_FILE = "sol.py"
SYNTAX_CHECK = (
    "import sys\n"
    "src = open(sys.argv[1], 'rb').read()\n"
    "try:\n"
    "    compile(src, sys.argv[1], 'exec')\n"
    "except SyntaxError as e:\n"
    "    sys.exit('%s:%s:%s: %s: %s' % (e.filename, e.lineno, e.offset, type(e).__name__, e.msg))\n"
    "except (ValueError, TypeError) as e:\n"  # source with NUL bytes
    "    sys.exit('%s: %s' % (sys.argv[1], e))\n"
)


def compile_command(request: CompileRequest) -> CompileCommand:
    return CompileCommand(source=SOURCE_FILE, argv=(request.tools[INTERPRETER], "-c", SYNTAX_CHECK, SOURCE_FILE),
                          entry=SOURCE_FILE)


def run_argv(request: RunRequest) -> list[str]:
    return [request.tools[INTERPRETER], f"{request.program_dir}/{request.entry}", *request.args]


def variant(base: LanguageSpec) -> LanguageSpec:
    """Python 2 from the registered Python 3 (``base``)."""
    return dataclasses.replace(
        base, name="py2", display_name="Python 2", fence_tags=frozenset({"python2", "py2"}), tools=(tools.PYTHON2,),
        compile_command=compile_command, run_argv=run_argv, interpreter=INTERPRETER, plan=None)
