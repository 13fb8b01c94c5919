"""The naive harness and the optimised engine agree; a precompiled header changes no verdict.

Real tools throughout (clang-tidy, pylint, PMD, g++, bwrap). No timings are asserted:
speed is the benchmark's business (bench/run.py), sameness is this file's.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.naive import NaiveHarness, reference_revision
from linteval_ray.config import ValidationConfig
from linteval_ray.languages import CompileRequest, language
from linteval_ray.schema.bundled import bundled_path
from linteval_ray.schema.record import LintEvalRecord
from linteval_ray.toolchain import Toolchain
from linteval_ray.validate.cache import ContentCache, default_cache_dir
from linteval_ray.validate.engine import Validator
from linteval_ray.validate.judge import JudgeContext, prepare_problem
from linteval_ray.validate.judge.compile import PCH_DIR, box_include_dirs, compile_program, precompiled_headers
from linteval_ray.validate.judge.run import decide_verdict, run_tests
from linteval_ray.validate.sandbox import Sandbox, SandboxError, make_sandbox

# One problem, every language, a pass and a wrong answer: the three tools compile once per side.
SAMPLES = ("lr01_cpp_0", "lr01_cpp_1", "lr01_py3_0", "lr01_java_0")

# Solves lr01 (prefix sums) without bits/stdc++.h and with a global named like std::count:
# valid C++, which a force-included bits/stdc++.h would make ambiguous.
GLOBAL_COUNT = """#include <cstdio>
using namespace std;
int count;
long long pre[100005];
int main() {
    int n, q;
    if (scanf("%d %d", &n, &q) != 2) return 1;
    for (int i = 1; i <= n; i++) { int x; scanf("%d", &x); pre[i] = pre[i - 1] + x; }
    while (q--) { int l, r; scanf("%d %d", &l, &r); printf("%lld\\n", pre[r] - pre[l - 1]); count++; }
    return count < 0;
}
"""


def bundled_records() -> list[LintEvalRecord]:
    return [LintEvalRecord.model_validate_json(line) for line in bundled_path().read_text().splitlines()]


def bundled(sample_id: str) -> LintEvalRecord:
    for record in bundled_records():
        if record.sample_id == sample_id:
            return record
    raise LookupError(sample_id)


@pytest.fixture(scope="module")
def sandbox(toolchain: Toolchain) -> Iterator[Sandbox]:
    try:
        box = make_sandbox("bwrap", toolchain=toolchain)
    except SandboxError as exc:
        pytest.skip(f"bwrap unusable here: {exc}")
    yield box
    box.close()


@pytest.mark.slow
@pytest.mark.timeout(1800)  # 12 testlib compiles on the naive side: minutes on a loaded 2-core machine
def test_naive_and_optimised_paths_give_identical_outcomes(toolchain: Toolchain, sandbox: Sandbox):
    records = [bundled(s) for s in SAMPLES]
    naive = NaiveHarness(toolchain, sandbox)
    expected = {r.sample_id: naive.evaluate(r, reference_revision(r)) for r in records}

    validator = Validator(ValidationConfig(), toolchain=toolchain)
    try:
        rows = validator.evaluate_batch([{"record_json": r.model_dump_json(), "draw": 0,
                                          "raw_response": r.raw_response} for r in records])
    finally:
        validator.close()

    assert {row.verdict.value for row in rows} == {"passed", "wrong_answer"}  # both outcomes exercised
    for row in rows:
        want = expected[row.sample_id]
        assert (row.status.value, row.verdict.value) == (want.status, want.verdict), row.sample_id
        got_counts = (row.tests_generated, row.tests_passed, row.tests_failed, row.tests_dropped)
        assert got_counts == (want.tests_generated, want.tests_passed, want.tests_failed, want.tests_dropped)
        assert row.tests_passed > 0
        assert row.original_messages == want.original_messages, row.sample_id
        assert row.revised_messages == want.revised_messages, row.sample_id
        assert row.original_messages, "originals carry alerts: the comparison is not of two empty lists"


@pytest.fixture(scope="module")
def ctx(toolchain: Toolchain, sandbox: Sandbox, tmp_path_factory: pytest.TempPathFactory) -> JudgeContext:
    cache = ContentCache(None, default_cache_dir() / "cache")  # shared with the session's other tests
    return JudgeContext(sandbox=sandbox, toolchain=toolchain, cache=cache, scratch=tmp_path_factory.mktemp("pch"))


@pytest.mark.parametrize("code", [bundled("lr01_cpp_0").code, GLOBAL_COUNT], ids=["bits-stdcpp", "global-count"])
def test_a_pch_compile_gives_the_same_program_and_verdict(code: str, ctx: JudgeContext):
    problem = prepare_problem(bundled("lr01_cpp_0"), ctx)
    outcomes = {}
    for label, prebuilt in (("plain", False), ("pch", True)):
        out = Path(tempfile.mkdtemp(dir=ctx.scratch)) / "prog"
        compiled = compile_program("cpp", code, ctx, out, prebuilt=prebuilt)
        assert compiled.program is not None, compiled.error
        verdict, _ = decide_verdict(run_tests(compiled.program, problem, ctx))
        outcomes[label] = (verdict.value, (out / "prog").read_bytes())
    assert outcomes["pch"] == outcomes["plain"]
    assert outcomes["pch"][0] == "passed"


def test_the_pch_is_built_once_and_only_offered_where_it_applies(ctx: JudgeContext):
    cpp = language("cpp")
    folder = precompiled_headers(cpp, False, ctx)
    assert folder is not None and (folder / "bits" / "stdc++.h.gch").stat().st_size > 1 << 20
    assert precompiled_headers(cpp, False, ctx) == folder
    tools = precompiled_headers(cpp, True, ctx)
    assert tools is not None and tools != folder and [p.name for p in tools.iterdir()] == ["testlib.h.gch"]
    request = CompileRequest(code="", tools={"gxx": "g++"}, for_tools=True,
                             include_dirs=box_include_dirs(with_testlib=True, pch=True))
    argv = cpp.compile_command(request).argv
    assert argv[argv.index(PCH_DIR) - 1] == "-I" and argv.index(PCH_DIR) < argv.index("/testlib")  # .gch first
    assert box_include_dirs(with_testlib=False, pch=False) == ()
