"""Rows shaped like the LintEval card's, small enough to write by the hundred."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

GENERATOR = """#include "testlib.h"
int main(int argc, char* argv[]) {
    registerGen(argc, argv, 1);
    println(rnd.next(1, opt<int>("n")));
}
"""
CHECKER = """#include "testlib.h"
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    if (ans.readLong() != ouf.readLong()) quitf(_wa, "wrong");
    quitf(_ok, "ok");
}
"""
VALIDATOR = """#include "testlib.h"
int main(int argc, char* argv[]) {
    registerValidation(argc, argv);
    inf.readInt(1, 10);
    inf.readEoln();
    inf.readEof();
}
"""
CODE = {
    "py3": "n = int(input())\nprint(n)",
    "cpp": "#include <bits/stdc++.h>\nint main(){int n;std::cin>>n;std::cout<<n;}\n",
    "java": ("import java.util.*;\npublic class Main{public static void main(String[] a)"
             "{System.out.println(new Scanner(System.in).nextInt());}}\n"),
}


def make_row(number: int, language: str = "py3", **overrides: Any) -> dict[str, Any]:
    """Sample ``<1000+number>_A_<language>_0`` of problem ``<1000+number>_A``."""
    problem_id = f"{1000 + number}_A"
    row: dict[str, Any] = {
        "sample_id": f"{problem_id}_{language}_0",
        "problem_id": problem_id,
        "split": "test",
        "language": language,
        "code": CODE.get(language, CODE["py3"]),
        "linter_messages": [
            {
                "tool": "pylint",
                "file": "/tmp/tmpoo6s9mac.py",
                "line": 2,
                "column": 0,
                "severity": "warning",
                "message_text": "Final newline missing",
                "check_name": "missing-final-newline",
                "category": "readability",
                "message_identity": "missing-final-newline::Final newline missing",
            }
        ],
        "linter_message_count": 1,
        "original_loc": 2,
        "compile_ok": True,
        "source": "Codeforces",
        "title": f"Problem {number}",
        "generator": GENERATOR,
        "generator_cmd": "./gen -n 5\n./gen -n 10 # largest\n",
        "checker": CHECKER,
        "validator": VALIDATOR,
        "revised_code": None,
        "pass_at_1": None,
    }
    row.update(overrides)
    return row


def jsonl_lines(rows: list[Any]) -> str:
    """One JSON document per line; ``str`` items are written verbatim (for broken lines)."""
    return "".join((item if isinstance(item, str) else json.dumps(item)) + "\n" for item in rows)


def write_jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text(jsonl_lines(rows))
    return path
