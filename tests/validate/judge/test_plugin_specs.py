"""What a language's spec says about its environment and its memory reaches the judge: the C11
plugin (tests/languages/c11) with the settings a Go plugin needs, in the real bwrap sandbox."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator

import pytest

from linteval_ray.languages import LanguageSpec, registry
from linteval_ray.languages.base import frozen_env
from linteval_ray.validate.judge import JudgeContext, compile_cached
from linteval_ray.validate.judge.compile import CompiledProgram
from linteval_ray.validate.judge.limits import run_memory
from linteval_ray.validate.judge.problem import build_tests, run_reference
from linteval_ray.validate.sandbox import RunLimits
from tests.languages.c11 import SPEC as C11
from tests.validate.judge import problems

PRINTS_ITS_BUILD_DATE = '#include <stdio.h>\nint main(void) { puts(__DATE__); return 0; }\n'
PRINTS_ITS_MODE = ('#include <stdio.h>\n#include <stdlib.h>\n'
                   'int main(void) { const char *m = getenv("PLUGIN_MODE"); puts(m ? m : "unset"); return 0; }\n')


@pytest.fixture
def register(monkeypatch: pytest.MonkeyPatch) -> Callable[..., LanguageSpec]:
    """Registers C11 with the given fields for one test; a second call replaces it, as a user who
    edits their plugin between two runs that share a cache."""
    monkeypatch.setattr(registry, "_SPECS", dict(registry._SPECS))

    def register(**changes: object) -> LanguageSpec:
        spec = dataclasses.replace(C11, **changes)
        registry._SPECS.pop(spec.name, None)
        return registry.register_language(spec)

    return register


def run_output(program: CompiledProgram, ctx: JudgeContext) -> str:
    result = ctx.run(program.argv(256), limits=RunLimits(wall_s=10, memory_mb=1024), mounts=[program.mount()],
                     env=program.env())
    assert result.ok, result.stderr
    return result.stdout.decode().strip()


def test_the_compilers_environment_keys_cached_compiles(ctx: JudgeContext, register: Callable[..., LanguageSpec]):
    outputs = []
    for epoch in ("0", "86400"):  # SOURCE_DATE_EPOCH is what g++ expands __DATE__ to
        register(runtime_env=frozen_env({"SOURCE_DATE_EPOCH": epoch}))
        outcome = compile_cached("c11", PRINTS_ITS_BUILD_DATE, ctx)
        assert outcome.program is not None, outcome.error
        outputs.append(run_output(outcome.program, ctx))
    assert outputs == ["Jan  1 1970", "Jan  2 1970"]  # not the first compile's binary again


def test_the_runs_environment_keys_cached_answers(ctx: JudgeContext, register: Callable[..., LanguageSpec]):
    tests = build_tests(problems.record("cpp"), ctx)
    answers = []
    for mode in ("fast", "exact"):
        register(runtime_env=frozen_env({"PLUGIN_MODE": mode}))
        reference = run_reference("c11", PRINTS_ITS_MODE, tests, ctx)
        answers.append(reference.answer_path(reference.tests[0].name).read_text().strip())
    assert answers == ["fast", "exact"]


@pytest.fixture
def memory_counted(ctx: JudgeContext) -> Iterator[JudgeContext]:
    if not ctx.sandbox.counts_memory:
        pytest.skip("no memory cgroups here (not root): every run is bounded by its address space")
    yield ctx


RESERVES_THEN_USES = """#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
int main(int argc, char **argv) {
    /* what Go's runtime does before main: reserve address space it does not touch */
    void *arena = mmap(NULL, 900UL << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (arena == MAP_FAILED) { puts("reservation refused"); return 1; }
    size_t use = (size_t)atoi(argv[1]) << 20;
    volatile char *heap = malloc(use);  /* volatile: every page is touched, not optimised away */
    if (heap == NULL) { puts("allocation refused"); return 1; }
    for (size_t i = 0; i < use; i += 4096) heap[i] = 1;
    printf("used %zu MB\\n", use >> 20);
    return 0;
}
"""


def test_a_runtime_that_only_reserves_address_space_keeps_its_memory_limit(
        memory_counted: JudgeContext, register: Callable[..., LanguageSpec]):
    ctx = memory_counted
    memory_mb = ctx.limits.memory_mb  # 256
    register(address_space_reserve_mb=1024)
    outcome = compile_cached("c11", RESERVES_THEN_USES, ctx)
    assert outcome.program is not None, outcome.error
    program = outcome.program
    address_space, resident = run_memory(program, ctx)
    assert resident == memory_mb  # the cgroup: the memory limit, whatever the runtime reserves

    def run(use_mb: int) -> tuple[bool, bool, str]:
        result = ctx.run(program.argv(memory_mb, [str(use_mb)]), mounts=[program.mount()],
                         limits=RunLimits(wall_s=20, memory_mb=address_space, resident_mb=resident))
        return result.ok, result.oom_killed, result.stdout.decode().strip()

    assert run(100) == (True, False, "used 100 MB")  # 900 MB reserved up front, 100 MB used: it runs
    ok, oom_killed, _ = run(2 * memory_mb)  # past the memory limit: the kernel ends it there
    assert not ok and oom_killed
