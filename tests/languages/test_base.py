"""What every ``LanguageSpec`` derives from its fields, whatever the language."""

from __future__ import annotations

import dataclasses

import pytest

from linteval_ray.languages.base import NO_ENV, frozen_env
from linteval_ray.languages.registry import language
from tests.languages.toy import TOY


def test_address_space_is_the_memory_limit_plus_the_runtimes_overhead() -> None:
    assert TOY.address_space_mb(256) == 256
    assert dataclasses.replace(TOY, memory_overhead_mb=100).address_space_mb(256) == 356
    reserving = dataclasses.replace(TOY, address_space_reserve_mb=1024)
    assert (reserving.address_space_mb(256), reserving.used_memory_mb(256)) == (1280, 256)


def test_runs_get_both_environments_and_compiles_only_the_runtimes() -> None:
    spec = dataclasses.replace(TOY, output_env=frozen_env({"SEED": "0"}), runtime_env=frozen_env({"ARENAS": "2"}))
    assert spec.run_env() == {"ARENAS": "2", "SEED": "0"}
    assert spec.compile_env() == {"ARENAS": "2"}
    assert TOY.run_env() == {} and TOY.compile_env() is None  # None: the sandbox's base environment


def test_tools_have_flags_of_their_own() -> None:
    spec = dataclasses.replace(TOY, compile_flags=("-O2",), tool_compile_flags=("-O1",))
    assert spec.flags(for_tools=False) == ("-O2",) and spec.flags(for_tools=True) == ("-O1",)


def test_a_specs_environment_cannot_be_changed_by_a_caller() -> None:
    env = {"SEED": "0"}
    frozen = frozen_env(env)
    env["SEED"] = "1"  # the spec keeps its own copy
    assert frozen == {"SEED": "0"}
    with pytest.raises(TypeError):
        frozen["SEED"] = "2"  # type: ignore[index]
    with pytest.raises(TypeError):
        NO_ENV["X"] = "1"  # type: ignore[index]


def test_natively_run_languages_may_grow_their_stack_to_the_memory_limit() -> None:
    assert language("cpp").stack_at_memory_limit and language("py3").stack_at_memory_limit
    assert not language("java").stack_at_memory_limit  # its threads' stacks are -Xss
