"""What the run commands of natively run languages share (C++, Python): the stack's limit."""

from __future__ import annotations

from linteval_ray.validate.sandbox.process import PRLIMIT


def stack_limit_prefix(memory_mb: int) -> list[str]:
    """``prlimit --stack`` in front of a program: deep recursion is common and Codeforces
    lets the stack grow to the memory limit."""
    return [PRLIMIT, f"--stack={memory_mb << 20}", "--"]
