"""The box seccomp program is well formed for the architectures we know."""

from __future__ import annotations

import struct

import pytest

from linteval_ray.validate.sandbox.seccomp import box_filter


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_jumps_stay_inside_the_program_and_it_ends_in_returns(machine: str) -> None:
    program = box_filter(machine)
    assert program is not None
    insns = [struct.unpack("=HBBI", program[i : i + 8]) for i in range(0, len(program), 8)]
    for index, (code, jt, jf, _) in enumerate(insns):
        if code & 0x07 == 0x05:  # BPF_JMP
            assert index + 1 + max(jt, jf) < len(insns)
    assert insns[-1][0] == 0x06 and insns[-2][0] == 0x06


def test_unknown_architecture_has_no_filter() -> None:
    assert box_filter("sparc64") is None
