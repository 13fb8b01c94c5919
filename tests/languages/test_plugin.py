"""A fourth language registered from outside the package (tests/languages/c11, through
``$LINTEVAL_RAY_LANGUAGES``) is evaluated end to end by ``linteval-ray validate``: linted by its
clang-tidy C profile, compiled, judged with the bundled problem's testlib tools."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from linteval_ray.languages.registry import PLUGINS_ENV
from linteval_ray.schema.bundled import bundled_path

REPO = Path(__file__).resolve().parents[2]
ORIGINAL = """#include <stdio.h>

long long pre[100005];

int main(void) {
    int n, q;
    if (scanf("%d %d", &n, &q) != 2) return 0;
    for (int i = 1; i <= n; i++) {
        int x;
        if (scanf("%d", &x) != 1) return 0;
        pre[i] = pre[i - 1] + x;
    }
    while (q--) {
        int l, r;
        if (scanf("%d %d", &l, &r) != 2) return 0;
        printf("%lld\\n", pre[r] - pre[l - 1]);
    }
    return 0;
}
"""
REVISED = ORIGINAL.replace(") return 0;", ") {\n        return 0;\n    }")  # braces: the C profile's readability check
BRACES = "readability-braces-around-statements"


def c11_row() -> dict[str, object]:
    """The bundled problem lr01 (prefix sums) solved in C: its generator, validator and checker."""
    rows = (json.loads(line) for line in bundled_path().read_text().splitlines())
    row = next(r for r in rows if r["sample_id"] == "lr01_cpp_0")
    return {key: row[key] for key in ("problem_id", "split", "generator", "generator_cmd", "checker", "validator")} | {
        "sample_id": "lr01_c11_0", "language": "c11", "code": ORIGINAL, "revised_code": REVISED,
        "linter_messages": [], "compile_ok": True}


def validate(dataset: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "linteval_ray", "validate", "--dataset", str(dataset), "--json"],
                          capture_output=True, text=True, env=env, cwd=REPO, timeout=600, check=False)


def test_a_language_registered_from_outside_the_package_is_validated_end_to_end(tmp_path: Path) -> None:
    dataset = tmp_path / "c11.jsonl"
    dataset.write_text(json.dumps(c11_row()) + "\n")
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    env.pop(PLUGINS_ENV, None)
    unknown = validate(dataset, env)  # without the plugin: the row's language is unknown
    assert "Input should be 'cpp', 'py3' or 'java'" in unknown.stdout + unknown.stderr
    ran = validate(dataset, {**env, PLUGINS_ENV: "tests.languages.c11"})
    assert ran.returncode == 0, ran.stderr[-3000:]
    (row,) = [json.loads(line) for line in ran.stdout.splitlines() if line.startswith("{")]
    assert (row["language"], row["status"], row["verdict"]) == ("c11", "evaluated", "passed"), row
    braces = sorted(m["line"] for m in row["original_messages"] if m["check_name"] == BRACES)
    assert braces == [7, 10, 15]
    assert all(m["tool"] == "clang-tidy" and m["file"] == "sol.c" for m in row["original_messages"])
    assert not [m for m in row["revised_messages"] if m["check_name"] == BRACES]
    assert row["tests_passed"] > 0 and row["tests_failed"] == 0


GNU_C_ORIGINAL = ORIGINAL.replace("int main(void) {\n    int n, q;", "int main(void) {\n    int n, q, unused;")
GNU_C_REVISED = ORIGINAL


def test_a_plugin_with_a_tool_of_its_own_lints_in_the_sandbox_through_the_base_adapter(tmp_path: Path) -> None:
    """GNU C (tests/languages/gnu_c): its own tool row (gcc), its linter a ``SandboxedLinter`` of ~30
    lines (a command and a parser), registered beside C11 by one variable."""
    row = c11_row() | {"sample_id": "lr01_gnu_c_0", "language": "gnu_c", "code": GNU_C_ORIGINAL,
                       "revised_code": GNU_C_REVISED}
    dataset = tmp_path / "gnu_c.jsonl"
    dataset.write_text(json.dumps(row) + "\n")
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
           PLUGINS_ENV: "tests.languages.c11,tests.languages.gnu_c"}
    ran = validate(dataset, env)
    assert ran.returncode == 0, ran.stderr[-3000:]
    (judged,) = [json.loads(line) for line in ran.stdout.splitlines() if line.startswith("{")]
    assert (judged["language"], judged["status"], judged["verdict"]) == ("gnu_c", "evaluated", "passed"), judged
    assert [(m["tool"], m["check_name"], m["line"], m["category"]) for m in judged["original_messages"]] == [
        ("gcc-warnings", "unused-variable", 6, "unused")]
    assert judged["revised_messages"] == [] and judged["metrics"]["original_total_messages"] == 1
