"""A long-lived pylint process: ``python -m linteval_ray.languages.py3.pylint_worker RCFILE``.

Keeps pylint and astroid imported (a fresh pylint process costs ~0.8 s a file,
in-process ~40 ms). Protocol, one JSON object per line: it prints
``{"ready": version}``, then for each request ``{"paths": [...]}`` read on stdin
answers one line per path, in order: ``{"messages": [...json2...]}`` or
``{"error": "..."}``. The parent kills and restarts it when a file takes too long.
pylint writes a crash report (with the file's source) into ``PYLINTHOME`` when it
crashes on a file: the worker reads the exception's name from it and deletes it.
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
from pathlib import Path
from typing import Any, TextIO

# pylint's own failure messages: the tool, not the submission, broke
TOOL_FAILURES = frozenset({"astroid-error", "fatal"})
CRASH_EXCEPTION = re.compile(r"pylint crashed with a ``(\w+)``")


def lint_file(path: str, rcfile: str) -> dict[str, Any]:
    import astroid
    from pylint.lint import Run
    from pylint.reporters import JSON2Reporter

    buf = io.StringIO()
    try:
        Run(["--rcfile", rcfile, path], reporter=JSON2Reporter(buf), exit=False)
    except (Exception, RecursionError) as exc:  # noqa: BLE001 - any pylint crash is reported, not fatal
        return {"error": f"pylint crashed: {type(exc).__name__}: {exc}"[:500]}
    finally:
        # astroid caches modules by name: a later file must never see this one's tree
        astroid.MANAGER.astroid_cache.pop(Path(path).stem, None)
    crashes = take_crash_reports()
    messages = json.loads(buf.getvalue())["messages"]
    failures = [m for m in messages if m["symbol"] in TOOL_FAILURES]
    if failures:
        # the message names the file and the report's path, and asks to file a bug: only the cause is kept
        cause = ", ".join(crashes) or failures[0]["message"].split(". ", 1)[0].replace(path, Path(path).name)
        return {"error": f"pylint failed: {failures[0]['symbol']} ({cause})"[:500]}
    return {"messages": messages}


def take_crash_reports() -> list[str]:
    """The exception names of the crash reports pylint just wrote (the reports are deleted)."""
    from pylint.constants import PYLINT_HOME

    names = []
    for report in Path(PYLINT_HOME).glob("pylint-crash-*.txt"):
        found = CRASH_EXCEPTION.search(report.read_text(encoding="utf-8", errors="replace"))
        names.append(found.group(1) if found else "crash")
        report.unlink()
    return names


def reply(channel: TextIO, payload: dict[str, Any]) -> None:
    channel.write(json.dumps(payload) + "\n")
    channel.flush()


def main() -> int:
    rcfile = sys.argv[1]
    # The protocol owns the real stdout; anything pylint prints goes to stderr instead.
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    import pylint
    import pylint.lint

    reply(channel, {"ready": pylint.__version__})
    for line in sys.stdin:
        for path in json.loads(line)["paths"]:
            reply(channel, lint_file(path, rcfile))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
