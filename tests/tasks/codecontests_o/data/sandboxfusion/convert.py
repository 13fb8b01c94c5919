"""Convert SandboxFusion's 20 CodeContests problems to CodeContests-O rows (how code_contests.jsonl was made).

    python convert.py UPSTREAM.jsonl > code_contests.jsonl

UPSTREAM is ``sandbox/tests/datasets/samples/code_eval_code_contests.jsonl`` of
github.com/cai-jianfeng/SandboxFusion (commit f6defcffe35f23e08bf23aa8b55a3884ff18fcdc), one row per
problem: ``content`` (the statement), ``labels`` (JSON: name, difficulty, source) and ``test`` (JSON:
a list of ``{input: {stdin}, output: {stdout}}``). Each becomes a row in the CodeContests-O schema:
``name``, ``description``, ``corner_cases`` (the tests, as they are), ``checker`` (empty: CodeContests
has none) and, kept from the labels, ``difficulty`` and ``source``. Rows keep the upstream order.
"""

from __future__ import annotations

import json
import sys


def convert(line: str) -> dict[str, object]:
    row = json.loads(line)
    labels = json.loads(row["labels"])
    return {"name": labels["name"], "description": row["content"], "corner_cases": json.loads(row["test"]),
            "checker": "", "difficulty": labels["difficulty"], "source": labels["source"]}


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as upstream:
        for line in upstream:
            if line.strip():
                print(json.dumps(convert(line), ensure_ascii=False))
